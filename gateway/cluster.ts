import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../common/logger.js';

/** A gateway process that died is replaced after this long (so one that dies at start does not spin). */
const REPLACE_AFTER_MS = 1_000;

/**
 * The gateway as `processes` copies sharing its port (Node's cluster, this
 * process its primary, which only starts and replaces them); each copy is a
 * whole gateway (its own control-plane session, NATS
 * and Redis connections, request-log batcher). A copy that dies is replaced.
 * SIGTERM or SIGINT is passed on to every copy, each finishes the requests it
 * holds as a single gateway does, and this process exits when the last has.
 */
export function superviseGateways(processes: number, log: Logger): void {
  // Each gateway process accepts from the shared listening socket itself: connections never pass through this
  // process, and none is handed to a process that has just died (round-robin hand-over would lose those).
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  let stopping = false;
  const alive = () => Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead()).length;
  const fork = () => {
    const worker: Worker = cluster.fork();
    worker.once('exit', (code, signal) => {
      if (stopping) {
        if (alive() === 0) process.exit(0);
        return;
      }
      log.error({ pid: worker.process.pid, code, signal }, `a gateway process exited; replacing it in ${REPLACE_AFTER_MS} ms`);
      setTimeout(() => {
        if (!stopping) fork();
      }, REPLACE_AFTER_MS);
    });
  };
  for (let i = 0; i < processes; i++) fork();
  log.info({ processes }, 'gateway processes started');
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
