import type { Logger } from '../../common/logger.js';
import type { JobSignals } from '../jobs/job-signals.js';
import { loadOverdueJobIds, loadUnpublishedAttempts, type Db } from '../jobs/job-store.js';
import { failOpenJob } from '../jobs/lifecycle.js';
import type { Dispatcher } from './dispatcher.js';

export interface SweeperDeps {
  pool: Db;
  dispatcher: Dispatcher;
  signals: Pick<JobSignals, 'announce'>;
  log: Logger;
}

/** Rows looked at per sweep and kind. */
const SWEEP_BATCH = 100;

/**
 * Publishes attempts committed but never marked published (the process
 * stopped between commit and publish, or the flag was not written), and fails
 * jobs that outlived their deadline, refunding them, so no job waits forever
 * and no reservation is kept.
 */
export async function sweepOnce(deps: SweeperDeps, opts: { unpublishedAfterMs: number }): Promise<{ republished: number; expired: number }> {
  let republished = 0;
  for (const attempt of await loadUnpublishedAttempts(deps.pool, opts.unpublishedAfterMs, SWEEP_BATCH)) {
    // One attempt that cannot be published must not stop the others, nor the deadline pass below.
    try {
      await deps.dispatcher.publish(attempt.job, attempt);
      republished += 1;
    } catch (err) {
      deps.log.error({ err, jobId: attempt.job_id, attemptId: attempt.id }, 'republishing an attempt failed; its job fails at its deadline');
    }
  }

  let expired = 0;
  for (const id of await loadOverdueJobIds(deps.pool, SWEEP_BATCH)) {
    const ended = await failOpenJob(deps, id, { code: 'TIMEOUT', message: 'The job did not finish before its deadline' }).catch((err) => {
      deps.log.error({ err, jobId: id }, 'failing an overdue job failed; the next sweep retries');
      return false;
    });
    if (ended) expired += 1;
  }
  return { republished, expired };
}

export function startSweeper(deps: SweeperDeps, opts: { intervalMs: number; unpublishedAfterMs: number }): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    // A sweep still in flight (a slow database) makes this tick a no-op rather than a queued backlog.
    if (running) return;
    running = sweepOnce(deps, opts)
      .catch((err) => deps.log.error({ err }, 'sweep failed'))
      .finally(() => (running = null));
  }, opts.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      if (running) await running;
    },
  };
}
