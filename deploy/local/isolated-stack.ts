import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig, type TrawlConfig } from '../../common/config.js';
import { createClickHouse } from '../../common/connections.js';
import { streamNames } from '../../common/jetstream.js';
import { createLogger } from '../../common/logger.js';
import { natsNames, type NatsNames } from '../../common/nats-names.js';
import { createAccount, createApiKey } from '../../control-plane/accounts/api-keys.js';
import { migrateDatabase } from '../../control-plane/migrate.js';
import { grantEnterprise } from './dev-account.js';
import { ROLES, startRole, stopProcess, waitForHttp, type ManagedProcess, type Role } from './processes.js';

/**
 * A whole system on its own database, Redis database, NATS names and
 * ClickHouse database, wiped at start: what the tests and benchmarks run on.
 */
export interface IsolatedStack {
  baseUrl: string;
  config: TrawlConfig;
  env: NodeJS.ProcessEnv;
  names: NatsNames;
  pool: pg.Pool;
  redis: Redis;
  /** Sends a signal to a running role (e.g. SIGKILL a worker mid-job); resolves with its exit code once it exits. */
  kill(role: Role, signal: NodeJS.Signals): Promise<number | null>;
  /** Starts a role, with settings of its own on top of the stack's when given (a restart with another configuration). */
  start(role: Role, env?: NodeJS.ProcessEnv): Promise<void>;
  running(role: Role): boolean;
  /** The process id of a running role (e.g. to read its CPU time), undefined when it is not running. */
  pid(role: Role): number | undefined;
  /** Lines the processes printed, for diagnosing a failed test. */
  output: string[];
  stop(): Promise<void>;
}

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Clears every resource the test stack owns, so each run starts from nothing. */
async function resetResources(config: TrawlConfig, names: NatsNames): Promise<void> {
  const admin = new pg.Client({ connectionString: config.databaseUrl.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  const db = new URL(config.databaseUrl).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  await admin.end();

  const redis = new Redis(config.redisUrl);
  await redis.flushdb();
  await redis.quit();

  const nc = await connect({ servers: config.natsUrl });
  const jsm = await jetstreamManager(nc);
  for (const stream of streamNames(names)) {
    await jsm.streams.delete(stream).catch(() => undefined);
  }
  await nc.close();

  const ch = createClickHouse(config, 'default');
  await ch.command({ query: `DROP DATABASE IF EXISTS ${config.clickhouseDatabase}` });
  await ch.close();
}

export async function bootIsolatedStack(opts: IsolatedStackOptions): Promise<IsolatedStack> {
  const [gatewayPort, controlPlanePort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TRAWL_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/trawl_${opts.name}`,
    REDIS_URL: `redis://127.0.0.1:6379/${opts.redisDb}`,
    TRAWL_NATS_PREFIX: `${opts.name}_`,
    CLICKHOUSE_DATABASE: `trawl_${opts.name}`,
    GATEWAY_PORT: String(gatewayPort),
    CONTROL_PLANE_PORT: String(controlPlanePort),
    TRAWL_MASTER_KEY: randomBytes(32).toString('hex'),
    // The local-development setting stays off: only the fixture site's exact address is let through.
    TRAWL_ALLOW_PRIVATE_TARGETS: 'false',
    TRAWL_SSRF_ALLOW_CIDRS: '127.0.0.1/32',
    WORK_ACK_WAIT_MS: '3000',
    WORK_MAX_DELIVER: '5',
    DOMAIN_CONCURRENCY: '64',
    ...opts.env,
  };
  const config = loadConfig(env);
  const names = natsNames(config.natsPrefix);
  await resetResources(config, names);
  await migrateDatabase(config.databaseUrl, createLogger('stack', 'warn'));

  const output: string[] = [];
  const processes = new Map<Role, ManagedProcess>();
  const record = (role: Role, line: string) => {
    output.push(`${role} | ${line}`);
    if (output.length > 5_000) output.splice(0, 1_000);
    if (process.env.TRAWL_TEST_VERBOSE) process.stderr.write(`${role} | ${line}\n`);
  };
  const start = async (role: Role, extra: NodeJS.ProcessEnv = {}) => {
    processes.set(role, startRole(role, { ...env, ...extra }, record));
  };
  for (const role of Object.keys(ROLES) as Role[]) await start(role);

  const baseUrl = config.publicBaseUrl;
  try {
    // Generous: on a busy machine a dozen processes loading at once take minutes, and a failed boot fails a whole run.
    await waitForHttp(`${baseUrl}/api/v1/health/ready`, 150_000);
    await waitForWorkers(baseUrl, 60_000);
  } catch (err) {
    process.stderr.write(output.slice(-50).join('\n') + '\n');
    await Promise.all([...processes.values()].map((p) => stopProcess(p, 5_000)));
    throw err;
  }

  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
  const redis = new Redis(config.redisUrl);
  return {
    baseUrl,
    config,
    env,
    names,
    pool,
    redis,
    output,
    async kill(role, signal) {
      const p = processes.get(role);
      if (!p) return null;
      p.child.kill(signal);
      return p.exited;
    },
    start,
    pid(role) {
      return processes.get(role)?.child.pid;
    },
    running(role) {
      const p = processes.get(role);
      return !!p && p.child.exitCode === null && p.child.signalCode === null;
    },
    async stop() {
      await Promise.all([...processes.values()].map((p) => stopProcess(p, 10_000)));
      await pool.end();
      await redis.quit();
    },
  };
}

export async function waitForWorkers(baseUrl: string, timeoutMs: number, pool = 'fetch-t1'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = await fetch(`${baseUrl}/api/v1/status`).catch(() => null);
    if (res?.ok) {
      const body = (await res.json()) as { workers: Record<string, number> };
      if ((body.workers[pool] ?? 0) > 0) return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no ${pool} worker reported in`);
}


export interface IsolatedStackOptions {
  /** Names the database, Redis db, NATS prefix and ClickHouse database (e.g. "test", "bench"). */
  name: string;
  redisDb: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * An account holding `microcents` with a test key. `enterprise` gives it the
 * enterprise tier's limits (SPEC 8.1), for load that a small balance's tier
 * would refuse: benchmarks, and suites that poll.
 */
export async function createAccountWithKey(
  stack: IsolatedStack,
  microcents: number,
  opts: { enterprise?: boolean } = {},
): Promise<{ accountId: string; key: string }> {
  const { accountId } = await createAccount(stack.pool, { name: `${stack.config.natsPrefix}account`, initialMicrocents: microcents });
  if (opts.enterprise) await grantEnterprise(stack.pool, accountId);
  const { key } = await createApiKey(stack.pool, {
    accountId,
    name: 'key',
    // Live: test keys run free of charge, and the suites check what requests are charged.
    environment: 'live',
    masterKeyHex: stack.config.masterKeyHex,
  });
  return { accountId, key };
}
