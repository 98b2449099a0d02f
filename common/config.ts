import { DOCUMENT_PROCESSING_DEFAULT_S, DOCUMENT_PROCESSING_MAX_S, OAUTH_CLIENT_ID_PATTERN, OAUTH_CLIENT_SECRET_MIN_CHARS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from './limits.js';
import { MICROCENTS_PER_CREDIT, MICROCENTS_PER_USD } from './pricing.js';
import { CAPTCHA_TIER } from './tiers.js';
import { parsePremiumProxies, type PremiumProxy } from './proxy-url.js';

/**
 * The one configuration loader. Every process reads its settings here, from
 * environment variables with documented defaults (docs/configuration.md).
 */
export interface TrawlConfig {
  env: 'development' | 'test' | 'production';
  logLevel: string;
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
  /** Prefix for stream, consumer and subject names, so stacks can share one NATS server. */
  natsPrefix: string;
  clickhouseUrl: string;
  clickhouseDatabase: string;
  gatewayHost: string;
  gatewayPort: number;
  /** Gateway processes sharing its port (TRAWL_GATEWAY_PROCESSES, default 1): one per core the gateway may use. */
  gatewayProcesses: number;
  /** Memory each gateway process gives to the rendered answers of ended jobs (TRAWL_GATEWAY_JOB_BODIES_MB, default 32; 0: none kept). */
  gatewayJobBodiesBytes: number;
  publicBaseUrl: string;
  /** Proxies (IPs or CIDRs) whose X-Forwarded-For the gateway believes; empty: the peer address is the client. */
  trustedProxies: string[];
  controlPlaneHost: string;
  controlPlanePort: number;
  controlPlaneUrl: string;
  /** 32-byte key (hex) encrypting stored API keys with AES-256-GCM. */
  masterKeyHex: string;
  /** Dashboard session tokens (HS256 JWTs): the signing secret and how long a token lives. */
  session: { secret: string; ttlSeconds: number };
  /** The welcome bonus a new user's account is credited with, and the smaller one accounts sharing a sign-up address or e-mail domain get. */
  welcomeBonus: { fullMicrocents: number; reducedMicrocents: number };
  /** Requests a test key (sk_test_) may make per UTC day. */
  testKeyDailyRequests: number;
  ssrf: { allowPrivate: boolean; allowCidrs: string[] };
  worker: {
    concurrency: number;
    ackWaitMs: number;
    maxDeliver: number;
    domainConcurrency: number;
    domainLeaseTtlMs: number;
    userAgent: string;
    maxBytes: number;
    /** Threads running the content pipeline per worker process (0: one per CPU). */
    pipelineThreads: number;
    /** Longest one document may take to process. */
    pipelineBudgetMs: number;
    /** Longest the document pool may take to read one PDF or image (SPEC 8.4: 120 s by default, at most 300 s). */
    documentBudgetMs: number;
  };
  /** Tiers that have a worker pool deployed; escalation never plans others. Tier 5 counts only with a captcha solver. */
  availableTiers: string[];
  /** The 2captcha-compatible solving service tier 5 sends captchas to; tier 5 is unavailable without its URL. */
  captcha: { solverUrl: string; solverKey: string; solveTimeoutMs: number; pollIntervalMs: number };
  /** Whether a document pool (modes pdf and ocr) is deployed. */
  documentPool: boolean;
  /** The clients of tiers 2 and 4: the browser impit impersonates, and the Chromium the browser pool drives. */
  tiers: { impitBrowser: string; chromiumPath: string; browserConcurrency: number };
  /** The premium proxy pool (TRAWL_PREMIUM_PROXY_URLS): advanced.use_proxy and tier 3.5; empty when not configured. */
  premiumProxies: PremiumProxy[];
  /** Results kept in Redis for this long. */
  resultTtlSeconds: number;
  /** How long a scrape starts at the tier that last worked for the account on a host, after an escalation (0 turns it off). */
  tierMemoryTtlSeconds: number;
  llm: { baseUrl: string; apiKey: string; model: string; timeoutMs: number };
  /** A payment provider speaking Stripe's API (checkout sessions, signed webhooks); unset base URL or secret key: checkout answers 503. */
  payment: { baseUrl: string; secretKey: string; webhookSecret: string; timeoutMs: number };
  /** Balance below which credits.low is recorded, microcents. */
  creditsLowThresholdMicrocents: number;
  /** Webhook deliveries: the wait before the second and third attempts (SPEC 6.4: 1 and 5 minutes); attempts in flight per webhooks worker. */
  webhooks: { retryDelaysMs: number[]; concurrency: number };
  /** Per-key rate limits, dispatch entitlement and per-address limits (SPEC 8); off only for comparison benchmarks. */
  rateLimits: boolean;
  /** OAuth 2.0 (SPEC 5): clients registered at control-plane start, and redirect hosts or URIs allowed for every client. */
  oauth: { clients: OAuthClientConfig[]; redirectAllowlist: string[] };
  /** Trawl's own buckets for crawls with `storage` s3 or r2; null: that storage is not offered (a crawl asking for it answers 400). */
  crawlStorage: { s3: ObjectStoreConfig | null; r2: ObjectStoreConfig | null };
  /**
   * Where crawl `output` goes: the caller's S3 bucket at this endpoint ('' : AWS, per the caller's region), the caller's GCS
   * bucket at this API endpoint ('' : Google's) with tokens from this OAuth2 token URL (never the service account's own token_uri).
   */
  crawlOutput: { s3Endpoint: string; s3ForcePathStyle: boolean; gcsEndpoint: string; gcsTokenUrl: string };
}

/** An S3-compatible bucket Trawl writes to with its own credentials. */
export interface ObjectStoreConfig {
  /** '' : AWS S3 for the region. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Bucket in the path (http://host/bucket/key) rather than the host name: MinIO and most local servers need it. */
  forcePathStyle: boolean;
}

/** One entry of TRAWL_OAUTH_CLIENTS. */
export interface OAuthClientConfig {
  client_id: string;
  client_secret: string;
  name: string;
  /** This client's own allow-list entries: exact redirect URIs or host patterns. */
  redirect_uris: string[];
}

type Env = Record<string, string | undefined>;

function documentBudgetMs(env: Env): number {
  const seconds = int(env, 'TRAWL_DOCUMENT_TIMEOUT_S', DOCUMENT_PROCESSING_DEFAULT_S);
  if (seconds < 1 || seconds > DOCUMENT_PROCESSING_MAX_S) {
    throw new Error(`TRAWL_DOCUMENT_TIMEOUT_S must be from 1 to ${DOCUMENT_PROCESSING_MAX_S}, got ${seconds}`);
  }
  return seconds * 1000;
}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got "${raw}"`);
  return Math.trunc(value);
}

/** An amount of US dollars as whole microcents (1 USD = 1,000,000), never negative. */
function usdMicrocents(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number of US dollars, got "${raw}"`);
  return Math.round(value * MICROCENTS_PER_USD);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

/** TRAWL_OAUTH_CLIENTS: a JSON array of {client_id, client_secret, name, redirect_uris?}. Errors never quote a secret. */
function oauthClients(env: Env): OAuthClientConfig[] {
  const raw = env.TRAWL_OAUTH_CLIENTS;
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('TRAWL_OAUTH_CLIENTS must be a JSON array of {client_id, client_secret, name, redirect_uris?}');
  }
  if (!Array.isArray(parsed)) throw new Error('TRAWL_OAUTH_CLIENTS must be a JSON array');
  return parsed.map((entry: Record<string, unknown>, i) => {
    const where = `TRAWL_OAUTH_CLIENTS[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${where} must be an object`);
    const { client_id: id, client_secret: secret, name, redirect_uris: uris = [] } = entry;
    if (typeof id !== 'string' || !OAUTH_CLIENT_ID_PATTERN.test(id)) throw new Error(`${where}.client_id must be 1 to 64 of A-Z a-z 0-9 . _ -`);
    if (typeof secret !== 'string' || secret.length < OAUTH_CLIENT_SECRET_MIN_CHARS) {
      throw new Error(`${where}.client_secret must be at least ${OAUTH_CLIENT_SECRET_MIN_CHARS} characters`);
    }
    if (typeof name !== 'string' || name.trim() === '') throw new Error(`${where}.name must be a non-empty string`);
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) throw new Error(`${where}.redirect_uris must be an array of strings`);
    return { client_id: id, client_secret: secret, name: name.trim(), redirect_uris: uris as string[] };
  });
}

/** Two non-negative waits in milliseconds, comma-separated: before the second attempt, and before the third. */
function retryDelays(env: Env, name: string): number[] {
  const delays = list(env, name, [String(WEBHOOK_RETRY_DELAYS_MS[0]), String(WEBHOOK_RETRY_DELAYS_MS[1])]).map(Number);
  if (delays.length !== WEBHOOK_MAX_ATTEMPTS - 1 || !delays.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new Error(`${name} must be ${WEBHOOK_MAX_ATTEMPTS - 1} comma-separated non-negative whole numbers of milliseconds`);
  }
  return delays;
}

/**
 * TRAWL_CRAWL_STORAGE_<NAME>_*: a bucket, when BUCKET, ACCESS_KEY_ID and SECRET_ACCESS_KEY are all set; a
 * partial setting is a mistake worth stopping for.
 */
function objectStore(env: Env, name: 'S3' | 'R2', defaultRegion: string): ObjectStoreConfig | null {
  const at = (field: string) => env[`TRAWL_CRAWL_STORAGE_${name}_${field}`] ?? '';
  const required = ['BUCKET', 'ACCESS_KEY_ID', 'SECRET_ACCESS_KEY'];
  const set = required.filter((f) => at(f) !== '');
  if (set.length === 0) return null;
  if (set.length < required.length) {
    throw new Error(`TRAWL_CRAWL_STORAGE_${name}_BUCKET, _ACCESS_KEY_ID and _SECRET_ACCESS_KEY must be set together`);
  }
  if (name === 'R2' && at('ENDPOINT') === '') throw new Error('TRAWL_CRAWL_STORAGE_R2_ENDPOINT must be set with the R2 bucket (https://<account>.r2.cloudflarestorage.com)');
  return {
    endpoint: at('ENDPOINT'),
    bucket: at('BUCKET'),
    region: at('REGION') || defaultRegion,
    accessKeyId: at('ACCESS_KEY_ID'),
    secretAccessKey: at('SECRET_ACCESS_KEY'),
    forcePathStyle: bool(env, `TRAWL_CRAWL_STORAGE_${name}_FORCE_PATH_STYLE`, false),
  };
}

function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

export function loadConfig(env: Env = process.env): TrawlConfig {
  const mode = (env.TRAWL_ENV ?? 'development') as TrawlConfig['env'];
  if (!['development', 'test', 'production'].includes(mode)) {
    throw new Error(`TRAWL_ENV must be development, test or production, got "${mode}"`);
  }
  const gatewayHost = env.GATEWAY_HOST ?? '127.0.0.1';
  const gatewayPort = int(env, 'GATEWAY_PORT', 8080);
  const controlPlaneHost = env.CONTROL_PLANE_HOST ?? '127.0.0.1';
  const controlPlanePort = int(env, 'CONTROL_PLANE_PORT', 50051);
  const masterKeyHex = env.TRAWL_MASTER_KEY ?? '';
  if (mode === 'production' && !/^[0-9a-f]{64}$/i.test(masterKeyHex)) {
    throw new Error('TRAWL_MASTER_KEY must be 64 hex characters in production');
  }
  const sessionSecret = env.TRAWL_SESSION_SECRET ?? '';
  if (mode === 'production' && sessionSecret.length < 32) {
    throw new Error('TRAWL_SESSION_SECRET must be at least 32 characters in production');
  }
  const welcomeBonus = {
    fullMicrocents: usdMicrocents(env, 'TRAWL_WELCOME_BONUS_USD', 1),
    reducedMicrocents: usdMicrocents(env, 'TRAWL_WELCOME_BONUS_REDUCED_USD', 0.2),
  };
  if (welcomeBonus.reducedMicrocents > welcomeBonus.fullMicrocents) {
    throw new Error('TRAWL_WELCOME_BONUS_REDUCED_USD must not exceed TRAWL_WELCOME_BONUS_USD');
  }
  const effectiveMasterKey = /^[0-9a-f]{64}$/i.test(masterKeyHex) ? masterKeyHex : '0'.repeat(64);
  return {
    env: mode,
    logLevel: env.LOG_LEVEL ?? (mode === 'test' ? 'warn' : 'info'),
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/trawl',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    natsUrl: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    natsPrefix: env.TRAWL_NATS_PREFIX ?? '',
    clickhouseUrl: env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123',
    clickhouseDatabase: env.CLICKHOUSE_DATABASE ?? 'trawl',
    gatewayHost,
    gatewayPort,
    gatewayProcesses: Math.min(64, Math.max(1, int(env, 'TRAWL_GATEWAY_PROCESSES', 1))),
    gatewayJobBodiesBytes: Math.max(0, int(env, 'TRAWL_GATEWAY_JOB_BODIES_MB', 32)) * 1024 * 1024,
    publicBaseUrl: env.TRAWL_PUBLIC_BASE_URL ?? `http://${gatewayHost}:${gatewayPort}`,
    trustedProxies: list(env, 'TRAWL_TRUSTED_PROXIES', []),
    controlPlaneHost,
    controlPlanePort,
    controlPlaneUrl: env.CONTROL_PLANE_URL ?? `http://${controlPlaneHost}:${controlPlanePort}`,
    masterKeyHex: effectiveMasterKey,
    session: {
      // Outside production a missing secret is derived from the master key, so a stack's processes agree.
      secret: sessionSecret.length >= 32 ? sessionSecret : `trawl-session:${effectiveMasterKey}`,
      ttlSeconds: int(env, 'TRAWL_SESSION_TTL_SECONDS', 7 * 24 * 3600),
    },
    welcomeBonus,
    testKeyDailyRequests: int(env, 'TRAWL_TEST_KEY_DAILY_REQUESTS', 1_000),
    ssrf: {
      allowPrivate: bool(env, 'TRAWL_ALLOW_PRIVATE_TARGETS', false),
      allowCidrs: list(env, 'TRAWL_SSRF_ALLOW_CIDRS', []),
    },
    worker: {
      concurrency: int(env, 'WORKER_CONCURRENCY', 16),
      ackWaitMs: int(env, 'WORK_ACK_WAIT_MS', 30_000),
      maxDeliver: int(env, 'WORK_MAX_DELIVER', 5),
      domainConcurrency: int(env, 'DOMAIN_CONCURRENCY', 8),
      domainLeaseTtlMs: int(env, 'DOMAIN_LEASE_TTL_MS', 30_000),
      userAgent:
        env.TRAWL_USER_AGENT ??
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      maxBytes: int(env, 'TRAWL_MAX_CONTENT_BYTES', 10 * 1024 * 1024),
      pipelineThreads: int(env, 'TRAWL_PIPELINE_THREADS', 0),
      pipelineBudgetMs: int(env, 'TRAWL_PIPELINE_BUDGET_MS', 60_000),
      documentBudgetMs: documentBudgetMs(env),
    },
    availableTiers: list(env, 'TRAWL_AVAILABLE_TIERS', ['1', '2', '3', '4', CAPTCHA_TIER]).filter((tier) => tier !== CAPTCHA_TIER || !!env.TRAWL_CAPTCHA_SOLVER_URL),
    captcha: {
      solverUrl: env.TRAWL_CAPTCHA_SOLVER_URL ?? '',
      solverKey: env.TRAWL_CAPTCHA_SOLVER_KEY ?? '',
      solveTimeoutMs: int(env, 'TRAWL_CAPTCHA_SOLVE_TIMEOUT_MS', 180_000),
      pollIntervalMs: Math.max(100, int(env, 'TRAWL_CAPTCHA_POLL_INTERVAL_MS', 5_000)),
    },
    documentPool: bool(env, 'TRAWL_DOCUMENT_POOL', true),
    tiers: {
      impitBrowser: env.TRAWL_IMPIT_BROWSER ?? 'chrome',
      chromiumPath: env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium',
      browserConcurrency: Math.max(1, int(env, 'TRAWL_BROWSER_CONCURRENCY', 4)),
    },
    premiumProxies: parsePremiumProxies(env.TRAWL_PREMIUM_PROXY_URLS ?? ''),
    resultTtlSeconds: int(env, 'TRAWL_RESULT_TTL_SECONDS', 24 * 3600),
    tierMemoryTtlSeconds: int(env, 'TRAWL_TIER_MEMORY_TTL_SECONDS', 3600),
    llm: {
      baseUrl: env.TRAWL_LLM_BASE_URL ?? '',
      apiKey: env.TRAWL_LLM_API_KEY ?? '',
      model: env.TRAWL_LLM_MODEL ?? 'gpt-4o-mini',
      timeoutMs: int(env, 'TRAWL_LLM_TIMEOUT_MS', 60_000),
    },
    payment: {
      baseUrl: env.TRAWL_PAYMENT_BASE_URL ?? '',
      secretKey: env.TRAWL_PAYMENT_SECRET_KEY ?? '',
      webhookSecret: env.TRAWL_PAYMENT_WEBHOOK_SECRET ?? '',
      timeoutMs: int(env, 'TRAWL_PAYMENT_TIMEOUT_MS', 20_000),
    },
    creditsLowThresholdMicrocents: Math.max(0, int(env, 'TRAWL_CREDITS_LOW_THRESHOLD_CREDITS', 100)) * MICROCENTS_PER_CREDIT,
    webhooks: { retryDelaysMs: retryDelays(env, 'TRAWL_WEBHOOK_RETRY_DELAYS_MS'), concurrency: int(env, 'TRAWL_WEBHOOK_CONCURRENCY', 64) },
    rateLimits: bool(env, 'TRAWL_RATE_LIMITS', true),
    oauth: { clients: oauthClients(env), redirectAllowlist: list(env, 'TRAWL_OAUTH_REDIRECT_ALLOWLIST', []) },
    crawlStorage: { s3: objectStore(env, 'S3', 'us-east-1'), r2: objectStore(env, 'R2', 'auto') },
    crawlOutput: {
      s3Endpoint: env.TRAWL_CRAWL_OUTPUT_S3_ENDPOINT ?? '',
      s3ForcePathStyle: bool(env, 'TRAWL_CRAWL_OUTPUT_S3_FORCE_PATH_STYLE', false),
      gcsEndpoint: env.TRAWL_CRAWL_OUTPUT_GCS_ENDPOINT ?? '',
      gcsTokenUrl: env.TRAWL_CRAWL_OUTPUT_GCS_TOKEN_URL || 'https://oauth2.googleapis.com/token',
    },
  };
}
