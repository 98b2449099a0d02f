import { expect } from 'chai';
import { createLogger } from '../../common/logger.js';
import { createDispatcher } from '../../control-plane/scheduler/dispatcher.js';
import { sweepOnce } from '../../control-plane/scheduler/sweeper.js';
import { balanceOf } from '../support/api.js';
import { admitTestJob, createTestCaller, useControlPlaneServices, type TestCaller } from './support/database.js';

describe('the sweeper', function () {
  this.timeout(60_000);
  const ctx = useControlPlaneServices();
  const admit = (caller: TestCaller, request: Record<string, unknown>, deadline: Date) =>
    admitTestJob(ctx.services, caller, { request: { url: 'https://example.com/', mode: 'auto', formats: ['markdown'], timeout: 30, ...request }, deadline });

  it('keeps sweeping past an attempt that cannot be published, and still fails, refunds and announces overdue jobs', async () => {
    const { services, signals } = ctx;
    const caller = await createTestCaller(services, 10_000);

    // A task over the NATS message limit (a body written before bodies were parked in Redis), never published.
    const poisoned = await admit(caller, { method: 'POST', body: 'x'.repeat(1_200_000) }, new Date(Date.now() + 300_000));
    // A job whose deadline has passed.
    const overdue = await admit(caller, {}, new Date(Date.now() - 1_000));
    await services.pool.query(`UPDATE job_attempts SET created_at = now() - interval '1 minute' WHERE job_id = $1`, [poisoned.job.id]);
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(9_600);

    const log = createLogger('sweeper-test', 'fatal');
    const dispatcher = createDispatcher({ js: services.js, names: services.names, pool: services.pool, log });
    const waiter = signals.watch(overdue.job.id);
    const result = await sweepOnce({ pool: services.pool, dispatcher, signals, log }, { unpublishedAfterMs: 1_000 });
    expect(result.expired).to.be.greaterThanOrEqual(1);
    const signal = await waiter.wait(5_000, (s) => s.kind === 'ended');
    expect(signal).to.deep.include({ kind: 'ended' });
    expect(signal?.kind === 'ended' && signal.record).to.deep.include({ id: overdue.job.id, status: 'failed', error_code: 'TIMEOUT', refunded_microcents: '200' });
    waiter.close();

    const jobs = await services.pool.query<{ id: string; status: string; error_code: string | null }>(
      'SELECT id, status, error_code FROM jobs WHERE id = ANY($1)',
      [[poisoned.job.id, overdue.job.id]],
    );
    const byId = new Map(jobs.rows.map((r) => [r.id, r]));
    expect(byId.get(overdue.job.id)).to.include({ status: 'failed', error_code: 'TIMEOUT' });
    expect(byId.get(poisoned.job.id)!.status).to.equal('pending');
    // The overdue job's reservation came back; the poisoned one's is held until its own deadline.
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(9_800);
  });

  it('publishes a committed attempt whose outbox flag was never written, then marks it published', async () => {
    const { services, signals } = ctx;
    const caller = await createTestCaller(services, 10_000);
    const admitted = await admit(caller, {}, new Date(Date.now() + 300_000));
    await services.pool.query(`UPDATE job_attempts SET created_at = now() - interval '1 minute' WHERE job_id = $1`, [admitted.job.id]);
    const log = createLogger('sweeper-test', 'fatal');
    const dispatcher = createDispatcher({ js: services.js, names: services.names, pool: services.pool, log });
    await sweepOnce({ pool: services.pool, dispatcher, signals, log }, { unpublishedAfterMs: 1_000 });
    await dispatcher.stop();
    const row = await services.pool.query<{ published: boolean }>('SELECT published FROM job_attempts WHERE id = $1', [admitted.attempt.id]);
    expect(row.rows[0]!.published).to.equal(true);
  });
});
