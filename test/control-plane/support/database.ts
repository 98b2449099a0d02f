import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig, type TrawlConfig } from '../../../common/config.js';
import { connectNats, connectRedis, createPgPool } from '../../../common/connections.js';
import { ensureStreams, streamNames } from '../../../common/jetstream.js';
import { createLogger } from '../../../common/logger.js';
import { natsNames, type NatsNames } from '../../../common/nats-names.js';
import { redisKeys, type RedisKeys } from '../../../common/redis-keys.js';
import { createAccount, createApiKey } from '../../../control-plane/accounts/api-keys.js';
import { admitJob, type AdmittedJob, type JobSpec } from '../../../control-plane/jobs/admission.js';
import { startJobSignals, type JobSignals } from '../../../control-plane/jobs/job-signals.js';
import { migrateDatabase } from '../../../control-plane/migrate.js';

/**
 * The control plane's own services without the rest of the system: a freshly
 * migrated database, a Redis database and NATS streams, named after the test
 * stack (TRAWL_TEST_STACK, TRAWL_TEST_REDIS_DB) so runs side by side stay apart.
 */
export interface ControlPlaneServices {
  config: TrawlConfig;
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  js: JetStreamClient;
  names: NatsNames;
  keys: RedisKeys;
}

let booting: Promise<ControlPlaneServices> | null = null;

export function getControlPlaneServices(): Promise<ControlPlaneServices> {
  booting ??= (async () => {
    const name = `${process.env.TRAWL_TEST_STACK ?? 'test'}_cp`;
    const config = loadConfig({
      ...process.env,
      TRAWL_ENV: 'test',
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/trawl_${name}`,
      REDIS_URL: `redis://127.0.0.1:6379/${process.env.TRAWL_TEST_REDIS_DB ?? 13}`,
      TRAWL_NATS_PREFIX: `${name}_`,
    });
    const admin = new pg.Client({ connectionString: config.databaseUrl.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "trawl_${name}" WITH (FORCE)`);
    await admin.end();
    await migrateDatabase(config.databaseUrl, createLogger('test', 'warn'));
    const nc = await connectNats(config, 'control-plane-test');
    const names = natsNames(config.natsPrefix);
    const jsm = await jetstreamManager(nc);
    for (const stream of streamNames(names)) await jsm.streams.delete(stream).catch(() => undefined);
    await ensureStreams(jsm, names);
    return { config, pool: createPgPool(config, 8), redis: connectRedis(config), nc, js: jetstream(nc), names, keys: redisKeys(config.natsPrefix) };
  })();
  return booting;
}

/** A new account holding `microcents` with an API key: the caller its jobs are admitted for. */
export async function createTestCaller(services: ControlPlaneServices, microcents: number) {
  const { accountId } = await createAccount(services.pool, { name: 'control-plane test', initialMicrocents: microcents });
  // Live: test keys run free of charge, and the suites check what jobs are charged.
  const key = await createApiKey(services.pool, { accountId, name: 'test', environment: 'live', masterKeyHex: services.config.masterKeyHex });
  return { accountId, keyId: key.id, scopes: key.scopes, key: key.key };
}

/**
 * Registers hooks that get the services before the suite and listen for job
 * signals while it runs; the returned object is filled in by then.
 */
export function useControlPlaneServices(): { services: ControlPlaneServices; signals: JobSignals } {
  const ctx = {} as { services: ControlPlaneServices; signals: JobSignals };
  before(async () => {
    ctx.services = await getControlPlaneServices();
    ctx.signals = startJobSignals(ctx.services.nc, ctx.services.names);
  });
  after(() => ctx.signals.stop());
  return ctx;
}

export type TestCaller = Awaited<ReturnType<typeof createTestCaller>>;

/** Admits a scrape job of example.com for `caller`, starting on tier 1; fields of the spec may be replaced. */
export function admitTestJob(services: ControlPlaneServices, caller: TestCaller, spec: Partial<JobSpec> = {}): Promise<AdmittedJob> {
  return admitJob(
    services.pool,
    caller,
    {
      kind: 'scrape',
      url: 'https://example.com/',
      mode: 'auto',
      formats: ['markdown'],
      sync: false,
      request: { url: 'https://example.com/', mode: 'auto', formats: ['markdown'], timeout: 30 },
      tierPlan: ['1'],
      pool: 'fetch-t1',
      reserveMicrocents: 200,
      attemptPriceMicrocents: 200,
      deadline: new Date(Date.now() + 300_000),
      estimatedTier: '1',
      ...spec,
    },
    'req_control_plane_test',
  );
}
