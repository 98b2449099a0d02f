import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsNames } from '../../common/nats-names.js';

export interface WorkerRegistry {
  liveCounts(): Record<string, number>;
  /** What each live worker of a pool announced it can do. */
  capabilities(pool: string): Record<string, unknown>[];
  stop(): void;
}

/** Workers announce themselves every few seconds; one silent for windowMs is taken as gone. */
export function startWorkerRegistry(nc: NatsConnection, names: NatsNames, opts: { windowMs: number }): WorkerRegistry {
  const seen = new Map<string, { pool: string; at: number; capabilities: Record<string, unknown> }>();
  const sub = nc.subscribe(names.workerHeartbeatSubject('*'));
  void (async () => {
    for await (const msg of sub) {
      try {
        const beat = JSON.parse(msg.string()) as { pool: string; worker_id: string; capabilities?: Record<string, unknown> };
        seen.set(beat.worker_id, { pool: beat.pool, at: Date.now(), capabilities: beat.capabilities ?? {} });
      } catch {
        continue;
      }
    }
  })();
  const live = () => {
    const cutoff = Date.now() - opts.windowMs;
    for (const [id, entry] of seen) if (entry.at < cutoff) seen.delete(id);
    return [...seen.values()];
  };
  return {
    liveCounts() {
      const counts: Record<string, number> = {};
      for (const entry of live()) counts[entry.pool] = (counts[entry.pool] ?? 0) + 1;
      return counts;
    },
    capabilities(pool) {
      return live()
        .filter((entry) => entry.pool === pool)
        .map((entry) => entry.capabilities);
    },
    stop() {
      sub.unsubscribe();
    },
  };
}
