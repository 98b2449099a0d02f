import { expect } from 'chai';
import { TrawlError } from '../../../common/errors.js';
import { createKeyLimits, keyBudgetExceeded, type KeyLimits } from '../../../control-plane/keys/key-limits.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    const known = err instanceof TrawlError ? err : keyBudgetExceeded(err);
    if (!known) throw err;
    return known.code;
  }
}

const count = (outcomes: string[], what: string) => outcomes.filter((o) => o === what).length;

describe('per-key limits', function () {
  this.timeout(30_000);
  let services: ControlPlaneServices;
  let limits: KeyLimits;
  before(async () => {
    services = await getControlPlaneServices();
    limits = createKeyLimits({ pool: services.pool, redis: services.redis, keys: services.keys, testKeyDailyRequests: 7, cacheMs: 60_000 });
  });

  it('aligns periods to the UTC calendar: days, ISO weeks from Monday, months', async () => {
    const res = await services.pool.query(
      `SELECT api_key_period_start('daily', '2026-03-10 23:30-05') AS d, api_key_period_end('daily', '2026-03-10 23:30-05') AS de,
              api_key_period_start('weekly', '2026-11-29 12:00Z') AS w, api_key_period_end('weekly', '2026-11-29 12:00Z') AS we,
              api_key_period_start('monthly', '2026-12-31 23:59:59Z') AS m, api_key_period_end('monthly', '2026-12-31 23:59:59Z') AS me`,
    );
    const r = res.rows[0];
    expect(r.d.toISOString()).to.equal('2026-03-11T00:00:00.000Z');
    expect(r.de.toISOString()).to.equal('2026-03-12T00:00:00.000Z');
    expect(r.w.toISOString()).to.equal('2026-11-23T00:00:00.000Z');
    expect(r.we.toISOString()).to.equal('2026-11-30T00:00:00.000Z');
    expect(r.m.toISOString()).to.equal('2026-12-01T00:00:00.000Z');
    expect(r.me.toISOString()).to.equal('2027-01-01T00:00:00.000Z');
  });

  it('admits exactly request_limit of many concurrent requests and refuses the rest with RATE_LIMIT_EXCEEDED', async () => {
    const caller = await createTestCaller(services, 0);
    await limits.write(caller.keyId, { budgetLimitMicrocents: null, requestLimit: 5, resetPeriod: 'daily', enabled: true });
    limits.forget(caller.keyId);
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => outcome(limits.admit({ keyId: caller.keyId, environment: 'live' }))));
    expect(count(outcomes, 'ok')).to.equal(5);
    expect(count(outcomes, 'RATE_LIMIT_EXCEEDED')).to.equal(25);
    const state = await limits.read(caller.keyId);
    expect(state).to.include({ requestLimit: 5, requestCount: 5, resetPeriod: 'daily' });
  });

  it('says when the limit resets, in the error details', async () => {
    const caller = await createTestCaller(services, 0);
    await limits.write(caller.keyId, { budgetLimitMicrocents: null, requestLimit: 0, resetPeriod: 'monthly', enabled: true });
    limits.forget(caller.keyId);
    try {
      await limits.admit({ keyId: caller.keyId, environment: 'live' });
      expect.fail('admitted over the limit');
    } catch (err) {
      const e = err as TrawlError;
      expect(e.code).to.equal('RATE_LIMIT_EXCEEDED');
      expect(e.details).to.include({ limit: 'api_key_request_limit', request_limit: 0 });
      const resetAt = new Date(String(e.details!['reset_at']));
      expect(resetAt.getUTCDate()).to.equal(1);
      expect(Number(e.details!['retry_after_seconds'])).to.be.closeTo((resetAt.getTime() - Date.now()) / 1000, 5);
    }
  });

  it('does not count while the limits are disabled', async () => {
    const caller = await createTestCaller(services, 0);
    await limits.write(caller.keyId, { budgetLimitMicrocents: null, requestLimit: 1, resetPeriod: 'daily', enabled: false });
    limits.forget(caller.keyId);
    for (let i = 0; i < 3; i++) await limits.admit({ keyId: caller.keyId, environment: 'live' });
    expect((await limits.read(caller.keyId))!.requestCount).to.equal(0);
  });

  it("caps a test key's requests per UTC day, and leaves live keys without limits alone", async () => {
    const test = await createTestCaller(services, 0);
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => outcome(limits.admit({ keyId: test.keyId, environment: 'test' }))));
    expect(count(outcomes, 'ok')).to.equal(7);
    expect(count(outcomes, 'RATE_LIMIT_EXCEEDED')).to.equal(5);
    const live = await createTestCaller(services, 0);
    for (let i = 0; i < 12; i++) await limits.admit({ keyId: live.keyId, environment: 'live' });
  });

  it('never admits concurrent jobs past the budget: exactly as many as it covers pass', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    await limits.write(caller.keyId, { budgetLimitMicrocents: 1_000, requestLimit: null, resetPeriod: 'monthly', enabled: true });
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => outcome(admitTestJob(services, caller, { reserveMicrocents: 200 }))));
    expect(count(outcomes, 'ok')).to.equal(5);
    expect(count(outcomes, 'KEY_BUDGET_EXCEEDED')).to.equal(7);
    const state = await limits.read(caller.keyId);
    expect(state!.spentMicrocents).to.equal(1_000);
    // Refused jobs left nothing behind: no job rows, no reservations.
    const jobs = await services.pool.query('SELECT count(*)::int AS n FROM jobs WHERE api_key_id = $1', [caller.keyId]);
    expect(jobs.rows[0].n).to.equal(5);
    const balance = await services.pool.query('SELECT balance_microcents FROM accounts WHERE id = $1', [caller.accountId]);
    expect(Number(balance.rows[0].balance_microcents)).to.equal(1_000_000 - 1_000);
  });

  it('reports the budget, the spend and what the refused job needed', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    await limits.write(caller.keyId, { budgetLimitMicrocents: 300, requestLimit: null, resetPeriod: 'daily', enabled: true });
    await admitTestJob(services, caller, { reserveMicrocents: 200 });
    try {
      await admitTestJob(services, caller, { reserveMicrocents: 200 });
      expect.fail('admitted past the budget');
    } catch (err) {
      const e = keyBudgetExceeded(err)!;
      expect(e.httpStatus).to.equal(402);
      expect(e.details).to.include({ budget_limit_microcents: 300, spent_microcents: 200, required_microcents: 200, reset_period: 'daily' });
      expect(String(e.details!['period_end'])).to.match(/^\d{4}-\d\d-\d\dT00:00:00Z$/);
    }
  });

  it('admits past the budget once the limits are disabled or removed', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    await limits.write(caller.keyId, { budgetLimitMicrocents: 0, requestLimit: null, resetPeriod: 'daily', enabled: true });
    expect(await outcome(admitTestJob(services, caller))).to.equal('KEY_BUDGET_EXCEEDED');
    await limits.write(caller.keyId, { budgetLimitMicrocents: 0, requestLimit: null, resetPeriod: 'daily', enabled: false });
    expect(await outcome(admitTestJob(services, caller))).to.equal('ok');
    await limits.remove(caller.keyId);
    expect(await outcome(admitTestJob(services, caller))).to.equal('ok');
  });

  it('reserves nothing for a job admitted with a test key, even on an empty balance', async () => {
    const caller = await createTestCaller(services, 0);
    const admitted = await admitTestJob(services, { ...caller, environment: 'test' } as typeof caller, { reserveMicrocents: 200 });
    const job = await services.pool.query('SELECT status, reserved_microcents FROM jobs WHERE id = $1', [admitted.job.id]);
    expect(job.rows[0]).to.deep.equal({ status: 'pending', reserved_microcents: '0' });
    expect(await outcome(admitTestJob(services, caller, { reserveMicrocents: 200 }))).to.equal('INSUFFICIENT_CREDITS');
  });
});
