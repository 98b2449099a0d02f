import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsNames } from '../../common/nats-names.js';

/** What the control plane announces on a job's done subject. */
export type JobSignal = { kind: 'ended' } | { kind: 'escalated'; tier: string };

export function announceJobSignal(nc: NatsConnection, names: NatsNames, jobId: string, signal: JobSignal): void {
  nc.publish(names.jobDoneSubject(jobId), JSON.stringify(signal));
}

export interface JobWaiter {
  /** Resolves on the first signal that `accept` takes, or with null at the timeout. */
  wait(timeoutMs: number, accept: (signal: JobSignal) => boolean): Promise<JobSignal | null>;
  close(): void;
}

/**
 * Subscribes before the job is dispatched so no announcement can be missed;
 * whichever control-plane replica settles the job, the one holding the
 * request hears it. No polling.
 */
export function watchJob(nc: NatsConnection, names: NatsNames, jobId: string): JobWaiter {
  const sub = nc.subscribe(names.jobDoneSubject(jobId));
  const queue: JobSignal[] = [];
  let notify = null as (() => void) | null;
  void (async () => {
    for await (const msg of sub) {
      try {
        queue.push(JSON.parse(msg.string()) as JobSignal);
      } catch {
        continue;
      }
      notify?.();
    }
    notify?.();
  })();
  return {
    async wait(timeoutMs, accept) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (queue.length > 0) {
          const signal = queue.shift()!;
          if (accept(signal)) return signal;
        }
        const left = deadline - Date.now();
        if (left <= 0 || sub.isClosed()) return null;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          notify = () => {
            clearTimeout(timer);
            notify = null;
            resolve();
          };
        });
      }
    },
    close() {
      sub.unsubscribe();
    },
  };
}
