import { expect } from 'chai';
import { loadBalance } from '../../../control-plane/billing/balance.js';
import { jobReference } from '../../../control-plane/billing/ledger.js';
import { loadUsage } from '../../../control-plane/billing/usage.js';
import type { AdmittedJob } from '../../../control-plane/jobs/admission.js';
import { closeJob } from '../../../control-plane/jobs/job-store.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

describe('usage and balance of an account, read from Postgres', function () {
  this.timeout(60_000);
  let stack: ControlPlaneServices;
  before(async () => {
    stack = await getControlPlaneServices();
  });

  const close = (admitted: AdmittedJob, error: { code: string; message: string; httpStatus: number; details: null } | null) =>
    closeJob(stack.pool, {
      jobId: admitted.job.id,
      ledgerReference: jobReference(admitted.job.id),
      attempt: {
        attemptId: admitted.attempt.id, succeeded: error === null, result: error ? 'timeout' : 'success', errorCode: error?.code ?? null,
        errorMessage: error?.message ?? null, escalate: false, statusCode: error ? null : 200, fetchMs: 1, durationMs: 1, bytes: 1, workerId: 'test', startedAt: null, deliveries: 1,
      },
      resultKey: error ? null : 'result',
      statusCode: error ? null : 200,
      error,
    });

  it('counts succeeded, failed and refused requests with their spend, refunds and deposits on today', async () => {
    const caller = await createTestCaller(stack, 10_000);
    const succeeded = await admitTestJob(stack, caller, { reserveMicrocents: 2_000, attemptPriceMicrocents: 200 });
    await close(succeeded, null);
    const failed = await admitTestJob(stack, caller, { reserveMicrocents: 300 });
    await close(failed, { code: 'TIMEOUT', message: 'timed out', httpStatus: 504, details: null });
    await admitTestJob(stack, caller, { reserveMicrocents: 1_000_000 }).catch(() => undefined);
    await admitTestJob(stack, caller); // still pending

    const usage = await loadUsage(stack.pool, caller.accountId, 7);
    const totals = { totalRequests: 4, successfulRequests: 1, failedRequests: 1, spendMicrocents: 200, refundedMicrocents: 300, depositsMicrocents: 10_000 };
    expect(usage).to.include({ days: 7, ...totals });
    expect(usage.byDay).to.have.length(7);
    expect(usage.byDay.at(-1)).to.deep.equal({ date: new Date().toISOString().slice(0, 10), ...totals });
    expect(usage.byDay.slice(0, -1).every((d) => d.totalRequests === 0 && d.depositsMicrocents === 0)).to.equal(true);
  });

  it('counts nothing from before the window', async () => {
    const caller = await createTestCaller(stack, 5_000);
    const old = await admitTestJob(stack, caller);
    await stack.pool.query(`UPDATE jobs SET created_at = now() - interval '3 days' WHERE id = $1`, [old.job.id]);
    await stack.pool.query(`UPDATE ledger_entries SET created_at = now() - interval '3 days' WHERE account_id = $1 AND kind = 'deposit'`, [caller.accountId]);
    const usage = await loadUsage(stack.pool, caller.accountId, 2);
    expect(usage).to.include({ totalRequests: 0, depositsMicrocents: 0 });
    expect((await loadUsage(stack.pool, caller.accountId, 4)).totalRequests).to.equal(1);
  });

  it('answers the balance with its tier and subscription status', async () => {
    const caller = await createTestCaller(stack, 50_000_000);
    expect(await loadBalance(stack.pool, caller.accountId)).to.deep.include({ balanceMicrocents: 50_000_000, isEnterprise: false, subscriptionStatus: 'none' });
    expect((await loadBalance(stack.pool, caller.accountId)).tier.id).to.equal('growth');
  });
});
