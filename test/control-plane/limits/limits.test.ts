import { randomUUID } from 'node:crypto';
import type { HandlerContext } from '@connectrpc/connect';
import { expect } from 'chai';
import pg from 'pg';
import { BALANCE_TIERS, ENTERPRISE_TIER, balanceTier, type BalanceTier } from '../../../common/balance-tiers.js';
import { TrawlError } from '../../../common/errors.js';
import { readLimitHeaders } from '../../../common/rate-limit-headers.js';
import { createLogger } from '../../../common/logger.js';
import { applyLedgerEntry } from '../../../control-plane/billing/ledger.js';
import type { JobRecord } from '../../../control-plane/jobs/job-store.js';
import { createAccountTiers, type AccountTiers } from '../../../control-plane/limits/account-tiers.js';
import { createDispatchEntitlement, releasingEndedJobs, type DispatchEntitlement } from '../../../control-plane/limits/dispatch-entitlement.js';
import { createKeyLimiter, RateLimitRefusal, requestCost } from '../../../control-plane/limits/key-limiter.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

const USD = 1_000_000;
const FREE = BALANCE_TIERS[0]!;
const log = createLogger('limits-test', 'warn');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function handlerContext(): HandlerContext {
  return { responseHeader: new Headers() } as HandlerContext;
}

async function refusal(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err, 'a refusal').to.be.instanceOf(TrawlError);
  return err as TrawlError;
}

/** Asks for the tier until `check` holds (an announcement arrives just after its commit), for at most two seconds. */
async function tierBecomes(tiers: AccountTiers, accountId: string, check: (tier: BalanceTier) => boolean): Promise<BalanceTier> {
  const until = Date.now() + 2_000;
  for (;;) {
    const tier = await tiers.tierOf(accountId);
    if (check(tier) || Date.now() > until) return tier;
    await sleep(5);
  }
}

describe('limits in the control plane', () => {
  let services: ControlPlaneServices;
  before(async () => {
    services = await getControlPlaneServices();
  });

  describe('request cost', () => {
    it('counts POST, PUT, PATCH and DELETE twice and anything else once', () => {
      expect(['POST', 'PUT', 'PATCH', 'DELETE', 'delete'].map(requestCost)).to.deep.equal([2, 2, 2, 2, 2]);
      expect(['GET', 'HEAD', null].map(requestCost)).to.deep.equal([1, 1, 1]);
    });
  });

  describe('the account tier', () => {
    /** A pool of its own, named, so a test can find and end its listening connection; and a count of its queries. */
    function countedPool() {
      const name = `tiers-test-${randomUUID().slice(0, 8)}`;
      const pool = new pg.Pool({ connectionString: services.config.databaseUrl, max: 3, application_name: name });
      const counted = { queries: 0 };
      const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
      (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        counted.queries++;
        return query(...args);
      };
      return { pool, name, counted };
    }

    it('reads an account once, then follows its deposits, charges and flags without reading it again', async () => {
      const { pool, counted } = countedPool();
      const tiers = createAccountTiers({ pool, log });
      try {
        await tiers.listening;
        const { accountId } = await createTestCaller(services, 0);
        expect((await tiers.tierOf(accountId)).id).to.equal('free');
        expect((await tiers.tierOf(accountId)).id).to.equal('free');
        expect(counted.queries, 'one read').to.equal(1);

        await applyLedgerEntry(services.pool, { accountId, kind: 'deposit', amountMicrocents: 60 * USD, reference: `test-deposit:${randomUUID()}` });
        expect((await tierBecomes(tiers, accountId, (t) => t.id === 'growth')).id).to.equal('growth');
        await applyLedgerEntry(services.pool, { accountId, kind: 'deposit', amountMicrocents: 600 * USD, reference: `test-deposit:${randomUUID()}` });
        expect((await tierBecomes(tiers, accountId, (t) => t.id === 'high_volume')).id).to.equal('high_volume');
        await services.pool.query('UPDATE accounts SET balance_microcents = $2 WHERE id = $1', [accountId, 10 * USD]);
        expect((await tierBecomes(tiers, accountId, (t) => t.id === 'basic')).id).to.equal('basic');
        await services.pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [accountId]);
        expect(await tierBecomes(tiers, accountId, (t) => t.id === 'enterprise')).to.deep.equal(ENTERPRISE_TIER);
        expect(counted.queries, 'still the one read').to.equal(1);
      } finally {
        await tiers.stop();
        await pool.end();
      }
    });

    it('has every change committed before caughtUp in the cache once it settles, without reading the row', async () => {
      const { pool, counted } = countedPool();
      const tiers = createAccountTiers({ pool, log });
      try {
        await tiers.listening;
        const accounts = await Promise.all(Array.from({ length: 5 }, () => createTestCaller(services, 0)));
        for (const { accountId } of accounts) expect((await tiers.tierOf(accountId)).id).to.equal('free');
        const reads = counted.queries;
        // Each change is asked about right after its commit and the fence: no wait for the announcement beyond it.
        for (const [i, { accountId }] of accounts.entries()) {
          await applyLedgerEntry(services.pool, { accountId, kind: 'deposit', amountMicrocents: (i % 2 ? 600 : 60) * USD, reference: `test-deposit:${randomUUID()}` });
          await tiers.caughtUp();
          expect((await tiers.tierOf(accountId)).id, `account ${i}`).to.equal(i % 2 ? 'high_volume' : 'growth');
          await services.pool.query('UPDATE accounts SET balance_microcents = 0 WHERE id = $1', [accountId]);
          await tiers.caughtUp();
          expect((await tiers.tierOf(accountId)).id, `account ${i} emptied`).to.equal('free');
        }
        expect(counted.queries - reads, 'no reads: every tier came from an announcement').to.equal(0);
      } finally {
        await tiers.stop();
        await pool.end();
      }
    });

    it("applies an enterprise account's custom limits, and ignores them without the flag", async () => {
      const { pool } = countedPool();
      const tiers = createAccountTiers({ pool, log });
      try {
        await tiers.listening;
        const { accountId } = await createTestCaller(services, 0);
        expect((await tiers.tierOf(accountId)).id).to.equal('free');
        await services.pool.query('UPDATE accounts SET limit_requests_per_minute = 100000, limit_concurrent_requests = 2000 WHERE id = $1', [accountId]);
        await sleep(50);
        expect((await tiers.tierOf(accountId)).id).to.equal('free');
        await services.pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [accountId]);
        const custom = { ...ENTERPRISE_TIER, requestsPerMinute: 100_000, concurrentRequests: 2_000 };
        expect(await tierBecomes(tiers, accountId, (t) => t.id === 'enterprise')).to.deep.equal(custom);
        // A fresh process reads the same from the row.
        const fresh = createAccountTiers({ pool, log });
        expect(await fresh.tierOf(accountId)).to.deep.equal(custom);
        await fresh.stop();
      } finally {
        await tiers.stop();
        await pool.end();
      }
    });

    it('answers calls arriving together from one read, each with its own account', async () => {
      const { pool, counted } = countedPool();
      const tiers = createAccountTiers({ pool, log });
      try {
        await tiers.listening;
        const poor = await createTestCaller(services, 0);
        const rich = await createTestCaller(services, 600 * USD);
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => tiers.tierOf(i % 2 ? rich.accountId : poor.accountId)));
        answers.forEach((tier, i) => expect(tier.id).to.equal(i % 2 ? 'high_volume' : 'free'));
        expect(counted.queries).to.equal(1);
      } finally {
        await tiers.stop();
        await pool.end();
      }
    });

    it('reads the row on every call while its listening connection is down, and caches again once it listens', async () => {
      const { pool, name, counted } = countedPool();
      const tiers = createAccountTiers({ pool, log, reconnectMs: 300 });
      try {
        await tiers.listening;
        const { accountId } = await createTestCaller(services, 0);
        await tiers.tierOf(accountId);
        const ended = await services.pool.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
          [name],
        );
        expect(ended.rowCount).to.equal(1);
        await sleep(50);
        // A deposit made while nobody listens is still seen: the tier is read.
        await applyLedgerEntry(services.pool, { accountId, kind: 'deposit', amountMicrocents: 60 * USD, reference: `test-deposit:${randomUUID()}` });
        const before = counted.queries;
        expect((await tiers.tierOf(accountId)).id).to.equal('growth');
        expect((await tiers.tierOf(accountId)).id).to.equal('growth');
        expect(counted.queries - before, 'a read per call').to.equal(2);

        // Back to listening: one read, then the cache.
        const relistened = Date.now() + 3_000;
        while (Date.now() < relistened) {
          const listeners = await services.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`, [name]);
          if (listeners.rowCount === 1) break;
          await sleep(50);
        }
        await sleep(50);
        await tiers.tierOf(accountId);
        const cached = counted.queries;
        expect((await tiers.tierOf(accountId)).id).to.equal('growth');
        expect(counted.queries).to.equal(cached);
        await services.pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [accountId]);
        expect((await tierBecomes(tiers, accountId, (t) => t.id === 'enterprise')).id).to.equal('enterprise');
      } finally {
        await tiers.stop();
        await pool.end();
      }
    });
  });

  describe('the key limiter', () => {
    it('answers the SPEC 8.3 headers of an admitted call', async () => {
      const limiter = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      try {
        const call = await limiter.admit(randomUUID(), FREE, 2);
        expect(call.headers).to.include({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '28', 'x-concurrency-limit': '3', 'x-concurrency-current': '1' });
        const reset = Number(call.headers['x-ratelimit-reset']);
        expect(reset).to.be.within(Math.floor(Date.now() / 1000), Math.ceil(Date.now() / 1000) + 5);
        call.release();
      } finally {
        limiter.stop();
      }
    });

    it('refuses the call over the concurrency of the tier with RATE_LIMIT_EXCEEDED and Retry-After, and admits again once one ends', async () => {
      const limiter = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      const keyId = randomUUID();
      const tier = { ...FREE, burstPerSecond: 100, requestsPerMinute: 1_000 };
      try {
        const calls = [await limiter.admit(keyId, tier, 1), await limiter.admit(keyId, tier, 1), await limiter.admit(keyId, tier, 1)];
        expect(calls.map((c) => c.headers['x-concurrency-current'])).to.deep.equal(['1', '2', '3']);
        const err = await refusal(limiter.admit(keyId, tier, 1));
        expect(err).to.be.instanceOf(RateLimitRefusal);
        expect(err.code).to.equal('RATE_LIMIT_EXCEEDED');
        expect(err.details).to.include({ limit: 'concurrent_requests', account_tier: 'free', retry_after_seconds: 1 });
        expect((err as RateLimitRefusal).headers).to.include({ 'retry-after': '1', 'x-concurrency-current': '3', 'x-concurrency-limit': '3' });
        // The next call of the key carries the ended call's lease away before counting.
        calls[0]!.release();
        const next = await limiter.admit(keyId, tier, 1);
        expect(next.headers['x-concurrency-current']).to.equal('3');
      } finally {
        limiter.stop();
      }
    });

    it('admits exactly the allowance of calls arriving together on one key, and no more, across two processes', async () => {
      const a = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      const b = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      const keyId = randomUUID();
      const tier = { ...FREE, burstPerSecond: 7, requestsPerMinute: 1_000, concurrentRequests: 100 };
      try {
        const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).admit(keyId, tier, 1)));
        const admitted = outcomes.filter((o) => o.status === 'fulfilled');
        const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(admitted).to.have.length(7);
        for (const r of refused) expect(r.reason).to.be.instanceOf(RateLimitRefusal).and.to.have.nested.property('details.limit', 'burst_per_second');
        // Each admitted call was told a different count left, as if they had come one after another.
        const left = admitted.map((o) => Number((o as PromiseFulfilledResult<{ headers: Record<string, string> }>).value.headers['x-ratelimit-remaining']));
        expect(new Set(left).size).to.equal(7);
      } finally {
        a.stop();
        b.stop();
      }
    });

    it('decides the calls of one key that arrive in the same turn of the event loop in one script run', async () => {
      const limiter = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      const keyId = randomUUID();
      const tier = { ...FREE, burstPerSecond: 1_000, requestsPerMinute: 10_000, concurrentRequests: 100 };
      const redis = services.redis as unknown as { sendCommand(command: { name: string; args: unknown[] }, ...rest: unknown[]): unknown };
      const send = redis.sendCommand;
      let runs = 0;
      redis.sendCommand = function (command, ...rest) {
        if (/^eval/i.test(command.name) && command.args.some((a) => String(a).includes(keyId))) runs++;
        return send.call(this, command, ...rest);
      };
      try {
        const calls = await Promise.all(Array.from({ length: 10 }, () => limiter.admit(keyId, tier, 1)));
        expect(runs).to.equal(1);
        expect(calls.map((c) => c.headers['x-concurrency-current'])).to.deep.equal(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
        // A call in a later turn is a run of its own.
        await limiter.admit(keyId, tier, 1);
        expect(runs).to.equal(2);
      } finally {
        redis.sendCommand = send;
        limiter.stop();
      }
    });

    it('holds calls arriving together on one key to the concurrency of the tier', async () => {
      const limiter = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      const keyId = randomUUID();
      const tier = { ...FREE, burstPerSecond: 1_000, requestsPerMinute: 10_000, concurrentRequests: 4 };
      try {
        const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => limiter.admit(keyId, tier, 1)));
        const admitted = outcomes.filter((o) => o.status === 'fulfilled');
        expect(admitted).to.have.length(4);
        expect(await services.redis.zcard(services.keys.keyLeases(keyId))).to.equal(4);
        const held = admitted.map((o) => (o as PromiseFulfilledResult<{ headers: Record<string, string> }>).value.headers['x-concurrency-current']);
        expect(held.sort()).to.deep.equal(['1', '2', '3', '4']);
      } finally {
        limiter.stop();
      }
    });

    it('drops the lease of an ended call from Redis within moments when no call of the key follows, so other processes see the slot free', async () => {
      const limiter = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 5_000, log });
      const keyId = randomUUID();
      try {
        const calls = [await limiter.admit(keyId, FREE, 1), await limiter.admit(keyId, FREE, 1)];
        expect(await services.redis.zcard(services.keys.keyLeases(keyId))).to.equal(2);
        calls[0]!.release();
        calls[1]!.release();
        calls[1]!.release();
        await sleep(100);
        expect(await services.redis.zcard(services.keys.keyLeases(keyId))).to.equal(0);
        // The lease set lives no longer than its leases could.
        const next = await limiter.admit(keyId, FREE, 1);
        expect(await services.redis.pttl(services.keys.keyLeases(keyId))).to.be.within(5_000, 6_000);
        next.release();
      } finally {
        limiter.stop();
      }
    });

    it('renews the leases of calls still running, so a long call keeps its slot', async () => {
      const limiter = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 300, log });
      const keyId = randomUUID();
      const tier = { ...FREE, concurrentRequests: 1 };
      try {
        const call = await limiter.admit(keyId, tier, 1);
        await sleep(700);
        expect((await refusal(limiter.admit(keyId, tier, 1))).details).to.include({ limit: 'concurrent_requests' });
        call.release();
      } finally {
        limiter.stop();
      }
    });

    it('frees the slot of a process that stopped renewing once the lease time has passed', async () => {
      const dead = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 300, log });
      const keyId = randomUUID();
      const tier = { ...FREE, concurrentRequests: 1 };
      await dead.admit(keyId, tier, 1);
      // The process dies: no renewal, no release.
      dead.stop();
      const alive = createKeyLimiter(services.redis, services.keys, { leaseTtlMs: 300, log });
      try {
        await refusal(alive.admit(keyId, tier, 1));
        await sleep(450);
        expect((await alive.admit(keyId, tier, 1)).headers['x-concurrency-current']).to.equal('1');
      } finally {
        alive.stop();
      }
    });
  });

  describe('dispatch entitlement', () => {
    let entitlement: DispatchEntitlement;
    let tiers: AccountTiers;
    before(async () => {
      tiers = createAccountTiers({ pool: services.pool, log });
      await tiers.listening;
      entitlement = createDispatchEntitlement({ ...services, tiers, docsUrl: 'http://trawl.test/api/v1/docs', log });
    });
    after(() => tiers.stop());
    const deadline = () => new Date(Date.now() + 300_000);
    const dispatch = (ctx: HandlerContext, accountId: string, ids: string[]) => entitlement.dispatch(ctx, { accountId, environment: 'live' }, ids, deadline(), async () => ids);

    it('holds the in-flight jobs of an account to its tier and answers the SPEC 7.4 detail over it', async () => {
      const caller = await createTestCaller(services, USD);
      const { accountId } = caller;
      const ctx = handlerContext();
      // Three jobs really open in Postgres, so none is dropped as ended.
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      await entitlement.dispatch(ctx, { accountId, environment: 'live' }, ids, deadline(), () => Promise.all(ids.map((id) => admitTestJob(services, caller, { id }))));
      expect(readLimitHeaders(ctx.responseHeader)['x-dispatch-entitlement-limit']).to.equal(String(FREE.effectivePostPerMinute));
      expect(readLimitHeaders(ctx.responseHeader)['x-dispatch-entitlement-remaining']).to.equal(String(FREE.effectivePostPerMinute - 3));
      const refusedCtx = handlerContext();
      const err = await refusal(dispatch(refusedCtx, accountId, [randomUUID()]));
      expect(err.code).to.equal('rate_limit_exceeded');
      expect(err.httpStatus).to.equal(429);
      expect(err.details).to.deep.equal({
        detail: { scope: 'global_concurrent', domain: null, limit: 3, in_flight: 3, requested: 1, accepted: 0, account_tier: 'free', retry_after_seconds: 1 },
        docs_url: 'http://trawl.test/api/v1/docs',
      });
      expect(readLimitHeaders(refusedCtx.responseHeader)['retry-after']).to.equal('1');
    });

    it('refuses dispatches over the effective POST per minute with scope global_rate', async () => {
      const { accountId } = await createTestCaller(services, 0);
      for (let i = 0; i < FREE.effectivePostPerMinute; i++) {
        const id = randomUUID();
        await dispatch(handlerContext(), accountId, [id]);
        entitlement.release(accountId, [id]);
      }
      await sleep(50);
      const err = await refusal(dispatch(handlerContext(), accountId, [randomUUID()]));
      expect(err.details!['detail']).to.include({ scope: 'global_rate', limit: FREE.effectivePostPerMinute, in_flight: 0, account_tier: 'free' });
      expect((err.details!['detail'] as { retry_after_seconds: number }).retry_after_seconds).to.be.within(1, 4);
    });

    it('frees the slots again when admission itself refuses the job', async () => {
      const { accountId } = await createTestCaller(services, 0);
      for (let i = 0; i < 4; i++) {
        const failed = entitlement.dispatch(handlerContext(), { accountId, environment: 'live' }, [randomUUID()], deadline(), async () => {
          throw new TrawlError('INSUFFICIENT_CREDITS', 'no money');
        });
        expect((await refusal(failed)).code).to.equal('INSUFFICIENT_CREDITS');
        await sleep(10);
      }
      expect(await services.redis.zcard(services.keys.dispatchInFlight(accountId))).to.equal(0);
    });

    it('frees a slot when the job-end signal is announced with the record', async () => {
      const { accountId } = await createTestCaller(services, 0);
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      await dispatch(handlerContext(), accountId, ids);
      const announced: string[] = [];
      const signals = releasingEndedJobs({ announce: (id) => announced.push(id), watch: () => ({ wait: async () => null, close() {} }), watching: () => false, stop() {} }, entitlement);
      signals.announce(ids[0]!, { kind: 'ended', record: { account_id: accountId } as JobRecord });
      signals.announce(ids[1]!, { kind: 'escalated', tier: '2' });
      await sleep(20);
      expect(announced).to.deep.equal([ids[0], ids[1]]);
      expect(await services.redis.zrange(services.keys.dispatchInFlight(accountId), 0, -1)).to.have.members([ids[1], ids[2]]);
    });

    it('never stays full with jobs that ended but whose release was lost: Postgres is asked which are still open', async () => {
      const { accountId } = await createTestCaller(services, 0);
      // Three jobs were dispatched by a process that died before releasing them; none is open in Postgres.
      await dispatch(handlerContext(), accountId, [randomUUID(), randomUUID(), randomUUID()]);
      const ctx = handlerContext();
      const [id] = await dispatch(ctx, accountId, [randomUUID()]);
      expect(await services.redis.zrange(services.keys.dispatchInFlight(accountId), 0, -1)).to.deep.equal([id]);
    });

    it("dispatches a test key's jobs at the Free tier whatever the account's balance", async () => {
      const { accountId } = await createTestCaller(services, 600 * USD);
      const live = handlerContext();
      await entitlement.dispatch(live, { accountId, environment: 'live' }, [randomUUID()], deadline(), async () => undefined);
      expect(readLimitHeaders(live.responseHeader)['x-dispatch-entitlement-limit']).to.equal(String(balanceTier(600 * USD, false).effectivePostPerMinute));
      const test = handlerContext();
      await entitlement.dispatch(test, { accountId, environment: 'test' }, [randomUUID()], deadline(), async () => undefined);
      expect(readLimitHeaders(test.responseHeader)['x-dispatch-entitlement-limit']).to.equal(String(FREE.effectivePostPerMinute));
    });

    it('uses the tier of the balance, and the enterprise flag', async () => {
      const { accountId } = await createTestCaller(services, 250 * USD);
      const ctx = handlerContext();
      await dispatch(ctx, accountId, [randomUUID()]);
      expect(readLimitHeaders(ctx.responseHeader)['x-dispatch-entitlement-limit']).to.equal(String(balanceTier(250 * USD, false).effectivePostPerMinute));
      await services.pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [accountId]);
      await tierBecomes(tiers, accountId, (t) => t.id === 'enterprise');
      const after = handlerContext();
      await dispatch(after, accountId, [randomUUID()]);
      expect(readLimitHeaders(after.responseHeader)['x-dispatch-entitlement-limit']).to.equal(String(ENTERPRISE_TIER.effectivePostPerMinute));
    });
  });
});
