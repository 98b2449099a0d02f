import { create, toBinary } from '@bufbuild/protobuf';
import { createClient, createRouterTransport, type Client } from '@connectrpc/connect';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { loadConfig } from '../../common/config.js';
import { connectRedis, createPgPool } from '../../common/connections.js';
import { TrawlError } from '../../common/errors.js';
import { createLogger } from '../../common/logger.js';
import { fromConnectError } from '../../common/rpc-errors.js';
import { ScrapeResultSchema, ScrapeService } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { AttemptPhase, AttemptReportSchema } from '../../proto/gen/trawl/v1/work_pb.js';
import { createAuthenticator } from '../../control-plane/accounts/authenticator.js';
import { createSessionAuthenticator } from '../../control-plane/accounts/session-authenticator.js';
import { createSessionTokens } from '../../control-plane/accounts/session-tokens.js';
import { createJobLoader } from '../../control-plane/jobs/job-view.js';
import { UNLIMITED_DISPATCH } from '../../control-plane/limits/dispatch-entitlement.js';
import { createStartRecorder } from '../../control-plane/jobs/lifecycle.js';
import { createDispatcher } from '../../control-plane/scheduler/dispatcher.js';
import { applyAttemptReport } from '../../control-plane/scheduler/report-handler.js';
import { createScrapeService } from '../../control-plane/scrape/scrape-service.js';
import { createTierMemory } from '../../control-plane/scrape/tier-memory.js';
import { controlPlaneInterceptors } from '../../control-plane/server.js';
import { balanceOf } from '../support/api.js';
import { createTestCaller, useControlPlaneServices } from './support/database.js';
import { closedPort } from '../support/closed-port.js';

/** Calls and answers through the control plane's own interceptors, in memory. */
describe('ScrapeService behind the control-plane interceptors', function () {
  this.timeout(30_000);
  const log = createLogger('scrape-service-test', 'fatal');
  const ctx = useControlPlaneServices();

  const client = (over: { pool?: pg.Pool; redis?: Redis; llmConfigured?: boolean; json?: boolean; documentPool?: boolean } = {}): Client<typeof ScrapeService> => {
    const pool = over.pool ?? ctx.services.pool;
    const deps = {
      pool,
      redis: over.redis ?? ctx.services.redis,
      keys: ctx.services.keys,
      dispatcher: createDispatcher({ js: ctx.services.js, names: ctx.services.names, pool, log }),
      signals: ctx.signals,
      availableTiers: ['1'],
      documentPool: over.documentPool ?? true,
      resultTtlSeconds: 24 * 3600,
      masterKeyHex: 'ab'.repeat(32),
      llmConfigured: over.llmConfigured ?? true,
      jobs: createJobLoader({ pool, redis: over.redis ?? ctx.services.redis, resultTtlSeconds: 24 * 3600 }),
      log,
      entitlement: UNLIMITED_DISPATCH,
      guard: { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] },
      tierMemory: createTierMemory({ redis: over.redis ?? ctx.services.redis, keys: ctx.services.keys, ttlSeconds: 60 }),
      premiumProxies: [],
    };
    const transport = createRouterTransport((router) => router.service(ScrapeService, createScrapeService(deps)), {
      transport: { useBinaryFormat: !over.json },
      router: { interceptors: controlPlaneInterceptors({
          authenticator: createAuthenticator(pool, { cacheMs: 0 }),
          sessions: createSessionAuthenticator(pool, createSessionTokens({ secret: 's'.repeat(32), ttlSeconds: 3600 })),
          methodAuth: new Map(),
          log,
        }) },
    });
    return createClient(ScrapeService, transport);
  };
  const failure = (call: Promise<unknown>) =>
    call.then(
      () => expect.fail('the call succeeded'),
      (err: unknown) => fromConnectError(err),
    );
  const scrape = (fields: Record<string, unknown> = {}) => ({
    request: { url: 'https://example.com/', mode: 'auto', sync: false, formats: ['markdown'], timeout: 30, method: 'GET', ...fields },
    requestId: 'req_service_test',
  });

  it('refuses an unauthenticated call and names the caller of an authenticated one', async () => {
    const missing = await failure(client().getJob({ jobId: '00000000-0000-4000-8000-000000000000' }));
    expect(missing.code).to.equal('MISSING_API_KEY');
    const caller = await createTestCaller(ctx.services, 1_000);
    let account = '';
    await client().estimate(scrape(), { headers: { 'x-api-key': caller.key }, onHeader: (h) => (account = h.get('trawl-account-id') ?? '') });
    expect(account).to.equal(caller.accountId);
  });

  it('refuses extraction_prompt with 503 when no LLM is configured, before admitting or charging anything', async () => {
    const caller = await createTestCaller(ctx.services, 10_000);
    const err = await failure(
      client({ llmConfigured: false }).submit(scrape({ extractionPrompt: 'the price' }), { headers: { 'x-api-key': caller.key } }),
    );
    expect(err).to.be.instanceOf(TrawlError);
    expect(err.code).to.equal('SERVICE_UNAVAILABLE');
    expect(err.httpStatus).to.equal(503);
    const jobs = await ctx.services.pool.query('SELECT 1 FROM jobs WHERE account_id = $1', [caller.accountId]);
    expect(jobs.rowCount).to.equal(0);
    expect(await balanceOf(ctx.services.pool, caller.accountId)).to.equal(10_000);
  });

  it('estimates pdf and ocr mode requests as not runnable where no document pool is deployed, instead of refusing them', async () => {
    const caller = await createTestCaller(ctx.services, 1_000);
    for (const [mode, price] of [['pdf', 200n], ['ocr', 1_200n]] as const) {
      const res = await client({ documentPool: false }).estimate(scrape({ mode }), { headers: { 'x-api-key': caller.key } });
      expect(res.runnable, mode).to.equal(false);
      expect(res.tiers[0]).to.equal('1');
      expect(res.estimatedMicrocents).to.equal(price);
    }
  });

  it('estimates a request with an extraction_prompt as not runnable where no LLM is configured, as the scrape refuses it', async () => {
    const caller = await createTestCaller(ctx.services, 1_000);
    const headers = { 'x-api-key': caller.key };
    const withPrompt = scrape({ extractionPrompt: 'the harbour master' });
    expect((await client({ llmConfigured: false }).estimate(withPrompt, { headers })).runnable).to.equal(false);
    expect((await client({ llmConfigured: true }).estimate(withPrompt, { headers })).runnable).to.equal(true);
  });

  it('answers RESULT_UNAVAILABLE (410) for a succeeded job whose stored result is gone, never a success without a result', async () => {
    const caller = await createTestCaller(ctx.services, 10_000);
    const headers = { 'x-api-key': caller.key };
    const submitted = await client().submit(scrape(), { headers });
    const job = submitted.job!;
    const attempt = await ctx.services.pool.query<{ id: string }>('SELECT id FROM job_attempts WHERE job_id = $1', [job.jobId]);
    const resultKey = ctx.services.keys.result(job.jobId, attempt.rows[0]!.id);
    await ctx.services.redis.set(resultKey, Buffer.from(toBinary(ScrapeResultSchema, create(ScrapeResultSchema, { url: 'https://example.com/', statusCode: 200 }))));
    await applyAttemptReport(
      { pool: ctx.services.pool, started: createStartRecorder(ctx.services.pool), log, tierMemory: createTierMemory({ redis: ctx.services.redis, keys: ctx.services.keys, ttlSeconds: 60 }) },
      create(AttemptReportSchema, { jobId: job.jobId, attemptId: attempt.rows[0]!.id, tier: '1', pool: 'fetch-t1', phase: AttemptPhase.FINISHED, ok: true, resultKey, statusCode: 200 }),
    );
    // The stored result travels as it is in a protobuf answer, and is decoded for a JSON one.
    for (const json of [false, true]) {
      const polled = await client({ json }).getJob({ jobId: job.jobId }, { headers });
      expect(polled.job!.status).to.equal('succeeded');
      expect(polled.job!.result).to.deep.include({ url: 'https://example.com/', statusCode: 200 });
      expect(polled.job!.billing!.totalCredits).to.equal(1);
    }

    await ctx.services.redis.del(resultKey);
    const gone = await failure(client().getJob({ jobId: job.jobId }, { headers }));
    expect(gone.code).to.equal('RESULT_UNAVAILABLE');
    expect(gone.httpStatus).to.equal(410);
    expect(gone.details).to.include({ job_id: job.jobId, kept_hours: 24 });
    expect(gone.details!.completed_at).to.be.a('string');
  });

  it('answers SERVICE_UNAVAILABLE (503), not an internal error, when Redis cannot be reached', async () => {
    const caller = await createTestCaller(ctx.services, 10_000);
    const headers = { 'x-api-key': caller.key };
    const job = (await client().submit(scrape(), { headers })).job!;
    await ctx.services.pool.query(`UPDATE jobs SET status = 'succeeded', result_key = 'somewhere' WHERE id = $1`, [job.jobId]);
    const redis = connectRedis(loadConfig({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}/0` }));
    redis.on('error', () => undefined);
    try {
      const err = await failure(client({ redis }).getJob({ jobId: job.jobId }, { headers }));
      expect(err.code).to.equal('SERVICE_UNAVAILABLE');
      expect(err.httpStatus).to.equal(503);
    } finally {
      redis.disconnect();
    }
  });

  it('answers SERVICE_UNAVAILABLE (503) when Postgres cannot be reached', async () => {
    const caller = await createTestCaller(ctx.services, 10_000);
    const pool = createPgPool(loadConfig({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/trawl` }), 1);
    try {
      const err = await failure(client({ pool }).getJob({ jobId: '00000000-0000-4000-8000-000000000000' }, { headers: { 'x-api-key': caller.key } }));
      expect(err.code).to.equal('SERVICE_UNAVAILABLE');
    } finally {
      await pool.end();
    }
  });
});
