import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsNames } from '../../common/nats-names.js';
import type { JobRecord } from './job-store.js';

/**
 * What the control plane announces about a job. An `ended` signal raised in
 * this process carries the job as it ended, and its stored result when it
 * was read while the job was settled, so a waiter here needs no further
 * read; one heard from another replica carries only the kind.
 */
export type JobSignal = ({ kind: 'ended' } & Partial<EndedJob>) | { kind: 'escalated'; tier: string };

/** A job as it ended, from the signal that announced it: its record and, when it was read meanwhile, its stored result. */
export interface EndedJob {
  record: JobRecord;
  storedResult?: Promise<Uint8Array | null>;
}

export interface JobWaiter {
  /** Resolves on the first signal that `accept` takes, or with null at the timeout. */
  wait(timeoutMs: number, accept: (signal: JobSignal) => boolean): Promise<JobSignal | null>;
  close(): void;
}

export interface JobSignals {
  announce(jobId: string, signal: JobSignal): void;
  /** Register before the job's task is published, so no announcement can be missed. */
  watch(jobId: string): JobWaiter;
  /** Whether a call in this process waits on the job. */
  watching(jobId: string): boolean;
  stop(): void;
}

interface Watch {
  queue: JobSignal[];
  notify: (() => void) | null;
}

/** On the wire: the signal without the record, and which process sent it. */
type WireSignal = { kind: 'ended'; from: string } | { kind: 'escalated'; tier: string; from: string };

/**
 * Hands announcements to the waiters registered in memory: at once when the
 * waiter is in this process, otherwise through NATS, where one wildcard
 * subscription per process on the job-done subjects hears the announcements
 * of every other replica. Whichever replica ends a
 * job, the one holding the request hears it; no polling, and no
 * subscription per job.
 */
export function startJobSignals(nc: NatsConnection, names: NatsNames): JobSignals {
  const self = randomUUID();
  const watches = new Map<string, Set<Watch>>();
  const deliver = (jobId: string, signal: JobSignal): boolean => {
    const set = watches.get(jobId);
    if (!set) return false;
    for (const w of set) {
      w.queue.push(signal);
      w.notify?.();
    }
    return true;
  };
  const sub = nc.subscribe(names.jobDoneSubject('*'), {
    callback: (err, msg) => {
      if (err) return;
      const jobId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
      if (!watches.has(jobId)) return;
      let wire: WireSignal;
      try {
        wire = JSON.parse(msg.string()) as WireSignal;
      } catch {
        return;
      }
      if (wire.from === self) return;
      deliver(jobId, wire.kind === 'ended' ? { kind: 'ended' } : { kind: 'escalated', tier: wire.tier });
    },
  });
  return {
    announce(jobId, signal) {
      // Only the call that submitted a job waits on it: when that call is here, no other replica listens.
      if (deliver(jobId, signal)) return;
      const wire: WireSignal = signal.kind === 'ended' ? { kind: 'ended', from: self } : { kind: 'escalated', tier: signal.tier, from: self };
      nc.publish(names.jobDoneSubject(jobId), JSON.stringify(wire));
    },
    watching: (jobId) => watches.has(jobId),
    watch(jobId) {
      const watch: Watch = { queue: [], notify: null };
      let set = watches.get(jobId);
      if (!set) watches.set(jobId, (set = new Set()));
      set.add(watch);
      let closed = false;
      return {
        async wait(timeoutMs, accept) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            while (watch.queue.length > 0) {
              const signal = watch.queue.shift()!;
              if (accept(signal)) return signal;
            }
            const left = deadline - Date.now();
            if (left <= 0 || closed || sub.isClosed()) return null;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, left);
              watch.notify = () => {
                clearTimeout(timer);
                watch.notify = null;
                resolve();
              };
            });
          }
        },
        close() {
          closed = true;
          watch.notify?.();
          set.delete(watch);
          if (set.size === 0 && watches.get(jobId) === set) watches.delete(jobId);
        },
      };
    },
    stop() {
      sub.unsubscribe();
      for (const set of watches.values()) for (const w of set) w.notify?.();
    },
  };
}
