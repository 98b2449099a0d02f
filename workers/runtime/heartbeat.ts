import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsNames } from '../../common/nats-names.js';

/** Announces this worker so the status routes can count live workers per pool. */
export function startHeartbeat(
  nc: NatsConnection,
  names: NatsNames,
  identity: { pool: string; workerId: string },
  opts: { everyMs?: number; capabilities?: Record<string, unknown> } = {},
) {
  const everyMs = opts.everyMs ?? 5_000;
  const message = JSON.stringify({ pool: identity.pool, worker_id: identity.workerId, ...(opts.capabilities ? { capabilities: opts.capabilities } : {}) });
  const beat = () => nc.publish(names.workerHeartbeatSubject(identity.pool), message);
  beat();
  const timer = setInterval(beat, everyMs);
  return { stop: () => clearInterval(timer) };
}
