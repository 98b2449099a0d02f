import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsNames } from '../../common/nats-names.js';

export interface WorkerRegistry {
  liveCounts(): Record<string, number>;
  stop(): void;
}

/** Workers announce themselves every few seconds; one silent for windowMs is taken as gone. */
export function startWorkerRegistry(nc: NatsConnection, names: NatsNames, opts: { windowMs: number }): WorkerRegistry {
  const seen = new Map<string, { pool: string; at: number }>();
  const sub = nc.subscribe(names.workerHeartbeatSubject('*'));
  void (async () => {
    for await (const msg of sub) {
      try {
        const beat = JSON.parse(msg.string()) as { pool: string; worker_id: string };
        seen.set(beat.worker_id, { pool: beat.pool, at: Date.now() });
      } catch {
        continue;
      }
    }
  })();
  return {
    liveCounts() {
      const counts: Record<string, number> = {};
      const cutoff = Date.now() - opts.windowMs;
      for (const [id, entry] of seen) {
        if (entry.at < cutoff) {
          seen.delete(id);
          continue;
        }
        counts[entry.pool] = (counts[entry.pool] ?? 0) + 1;
      }
      return counts;
    },
    stop() {
      sub.unsubscribe();
    },
  };
}
