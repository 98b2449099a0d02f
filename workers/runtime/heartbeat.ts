import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsNames } from '../../common/nats-names.js';

/** Announces this worker so the status routes can count live workers per pool. */
export function startHeartbeat(nc: NatsConnection, names: NatsNames, identity: { pool: string; workerId: string }, everyMs = 5_000) {
  const beat = () => nc.publish(names.workerHeartbeatSubject(identity.pool), JSON.stringify({ pool: identity.pool, worker_id: identity.workerId }));
  beat();
  const timer = setInterval(beat, everyMs);
  return { stop: () => clearInterval(timer) };
}
