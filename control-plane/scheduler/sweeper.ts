import type pg from 'pg';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { withTransaction } from '../billing/ledger.js';
import { publishAttempt, type AttemptRow, type JobForTask } from './dispatcher.js';
import { failJob, lockJob } from './job-settlement.js';
import { announceJobSignal } from './job-waiters.js';

export interface SweeperDeps {
  pool: pg.Pool;
  js: JetStreamClient;
  nc: NatsConnection;
  names: NatsNames;
  log: Logger;
}

/**
 * Publishes attempts committed but never published (the process stopped
 * between commit and publish), and fails jobs that outlived their deadline,
 * refunding them, so no job waits forever and no reservation is kept.
 */
export async function sweepOnce(deps: SweeperDeps, opts: { unpublishedAfterMs: number }): Promise<{ republished: number; expired: number }> {
  const unpublished = await deps.pool.query<AttemptRow & JobForTask & { account_id: string }>(
    `SELECT a.id, a.job_id, a.attempt_number, a.tier, a.pool, a.price_microcents, j.account_id, j.kind, j.input_key, j.request, j.deadline_at
     FROM job_attempts a JOIN jobs j ON j.id = a.job_id
     WHERE NOT a.published AND a.status = 'queued' AND j.status IN ('pending', 'running')
       AND a.created_at < now() - make_interval(secs => $1::double precision / 1000)
     LIMIT 100`,
    [opts.unpublishedAfterMs],
  );
  let republished = 0;
  for (const row of unpublished.rows) {
    // One attempt that cannot be published must not stop the others, nor the deadline pass below.
    try {
      await publishAttempt(
        deps,
        { id: row.job_id, account_id: row.account_id, kind: row.kind, request: row.request, deadline_at: row.deadline_at, input_key: row.input_key },
        row,
      );
      republished += 1;
    } catch (err) {
      deps.log.error({ err, jobId: row.job_id, attemptId: row.id }, 'republishing an attempt failed; its job fails at its deadline');
    }
  }

  const overdue = await deps.pool.query<{ id: string }>(
    `SELECT id FROM jobs WHERE status IN ('pending', 'running') AND deadline_at < now() LIMIT 100`,
  );
  let expired = 0;
  for (const { id } of overdue.rows) {
    const ended = await withTransaction(deps.pool, async (client) => {
      const job = await lockJob(client, id);
      if (!job || (job.status !== 'pending' && job.status !== 'running')) return false;
      await failJob(client, job, { code: 'TIMEOUT', message: 'The job did not finish before its deadline' });
      return true;
    }).catch((err) => {
      deps.log.error({ err, jobId: id }, 'failing an overdue job failed; the next sweep retries');
      return false;
    });
    if (ended) {
      expired += 1;
      announceJobSignal(deps.nc, deps.names, id, { kind: 'ended' });
    }
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
