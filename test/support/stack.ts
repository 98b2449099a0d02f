import { redisKeys } from '../../common/redis-keys.js';
import { bootIsolatedStack, createAccountWithKey, waitForWorkers, type IsolatedStack } from '../../deploy/local/isolated-stack.js';
import { startOpenAiTestServer, type OpenAiTestServer } from '../fixtures/openai-server.js';
import { startGcsTestServer, type GcsTestServer } from '../fixtures/gcs-server.js';
import { startPaymentTestServer, type PaymentTestServer } from '../fixtures/payment-provider-server.js';
import { startS3TestServer, type S3TestServer } from '../fixtures/s3-server.js';
import { testCa } from '../fixtures/test-ca.js';
import { startCaptchaSolverServer, type CaptchaSolverTestServer } from './captcha-solver-server.js';

export type TestStack = IsolatedStack & { llm: OpenAiTestServer; payments: PaymentTestServer; s3: S3TestServer; gcs: GcsTestServer; captchaSolver: CaptchaSolverTestServer };

/** The buckets of the local S3 and GCS servers: the operator's for crawl storage s3 (R2 is left unconfigured), and a caller's for output. */
export const OBJECT_STORES = {
  storageBucket: 'trawl-crawl-results',
  storageKeyId: 'TRAWLSTORAGEKEY',
  storageSecret: 'trawl-storage-secret-key',
  outputBucket: 'customer-results',
  outputKeyId: 'CUSTOMERKEY',
  outputSecret: 'customer-secret',
  gcsBucket: 'customer-gcs-results',
} as const;
export { waitForWorkers };

/**
 * The run's stack, kept on globalThis: mocha loads the root hooks and the
 * suites through different module loaders, so this module can be evaluated
 * twice, and the root hook must stop the stack the suites started.
 */
const shared = globalThis as typeof globalThis & { trawlTestStack?: Promise<TestStack> | null };

/**
 * The whole system, started once for the test run on resources of its own,
 * with its LLM provider pointed at a local server that speaks the
 * chat-completions protocol.
 */
export function getStack(): Promise<TestStack> {
  shared.trawlTestStack ??= (async () => {
    const llm = await startOpenAiTestServer();
    const payments = await startPaymentTestServer();
    const captchaSolver = await startCaptchaSolverServer();
    const s3 = await startS3TestServer(
      { [OBJECT_STORES.storageBucket]: [OBJECT_STORES.storageKeyId], [OBJECT_STORES.outputBucket]: [OBJECT_STORES.outputKeyId] },
      { [OBJECT_STORES.storageKeyId]: OBJECT_STORES.storageSecret, [OBJECT_STORES.outputKeyId]: OBJECT_STORES.outputSecret },
    );
    const gcs = await startGcsTestServer(OBJECT_STORES.gcsBucket);
    const stack = await bootIsolatedStack({
      // Separate names let several test runs share this machine's services at once.
      name: process.env.TRAWL_TEST_STACK ?? 'test',
      redisDb: Number(process.env.TRAWL_TEST_REDIS_DB ?? 13),
      env: {
        TRAWL_PIPELINE_BUDGET_MS: '5000',
        TRAWL_LLM_BASE_URL: llm.baseUrl,
        TRAWL_LLM_API_KEY: llm.apiKey,
        TRAWL_LLM_MODEL: llm.model,
        TRAWL_LLM_TIMEOUT_MS: '5000',
        TRAWL_PAYMENT_BASE_URL: payments.baseUrl,
        TRAWL_PAYMENT_SECRET_KEY: payments.secretKey,
        TRAWL_PAYMENT_WEBHOOK_SECRET: payments.webhookSecret,
        // Webhook receivers in the suites speak HTTPS with certificates of a private CA the operator trusts.
        NODE_EXTRA_CA_CERTS: testCa().caPath,
        // Tier 2's TLS client reads its trust store from SSL_CERT_FILE; the suites' HTTPS sites use the same CA.
        SSL_CERT_FILE: testCa().caPath,
        // Retries 1 and 2 seconds apart instead of 1 and 5 minutes, so the suites can watch the schedule.
        TRAWL_WEBHOOK_RETRY_DELAYS_MS: '1000,2000',
        // Tier 5 solves through the local solver, polled every 200 ms instead of every 5 s.
        TRAWL_CAPTCHA_SOLVER_URL: captchaSolver.baseUrl,
        TRAWL_CAPTCHA_SOLVER_KEY: captchaSolver.apiKey,
        TRAWL_CAPTCHA_POLL_INTERVAL_MS: '200',
        TRAWL_CAPTCHA_SOLVE_TIMEOUT_MS: '20000',
        // Crawl storage s3 and output s3/gcs go to the local S3 and GCS servers; R2 stays unconfigured.
        TRAWL_CRAWL_STORAGE_S3_ENDPOINT: s3.url,
        TRAWL_CRAWL_STORAGE_S3_BUCKET: OBJECT_STORES.storageBucket,
        TRAWL_CRAWL_STORAGE_S3_ACCESS_KEY_ID: OBJECT_STORES.storageKeyId,
        TRAWL_CRAWL_STORAGE_S3_SECRET_ACCESS_KEY: OBJECT_STORES.storageSecret,
        TRAWL_CRAWL_STORAGE_S3_FORCE_PATH_STYLE: 'true',
        TRAWL_CRAWL_OUTPUT_S3_ENDPOINT: s3.url,
        TRAWL_CRAWL_OUTPUT_S3_FORCE_PATH_STYLE: 'true',
        TRAWL_CRAWL_OUTPUT_GCS_ENDPOINT: gcs.url,
        TRAWL_CRAWL_OUTPUT_GCS_TOKEN_URL: `${gcs.url}/token`,
      },
    });
    await waitForWorkers(stack.baseUrl, 30_000, 'extract');
    return Object.assign(stack, { llm, payments, s3, gcs, captchaSolver });
  })();
  return shared.trawlTestStack;
}

export async function stopStackIfStarted(): Promise<void> {
  const booting = shared.trawlTestStack;
  if (!booting) return;
  shared.trawlTestStack = null;
  const stack = await booting.catch(() => null);
  await stack?.stop();
  await stack?.llm.close();
  await stack?.payments.close();
  await stack?.captchaSolver.close();
  await stack?.s3.close();
  await stack?.gcs.close();
}

/**
 * An account with a key for suites that exercise scraping, billing and the
 * gateway: enterprise by default, so their polling and concurrent requests
 * stay under the rate limits; `enterprise: false` gives the tier its balance
 * earns, as any account has (the limits suites use it).
 */
export function createTestAccount(stack: TestStack, microcents: number, opts: { enterprise?: boolean } = {}): Promise<{ accountId: string; key: string }> {
  return createAccountWithKey(stack, microcents, { enterprise: opts.enterprise ?? true });
}

/** Forgets every per-address limit count (SPEC 8.2), so each test starts as a client that has sent nothing. */
export async function resetIpLimits(stack: IsolatedStack): Promise<void> {
  const keys = await stack.redis.keys(`${redisKeys(stack.config.natsPrefix).ipLimitPrefix}*`);
  if (keys.length > 0) await stack.redis.del(...keys);
}

/** The stack, when this run has started it. */
export function startedStack(): Promise<TestStack> | null {
  return shared.trawlTestStack ?? null;
}
