import { once } from 'node:events';
import { createClickHouse, createPgPool, connectRedis } from '../common/connections.js';
import { runProcess } from '../common/process-runner.js';
import { createGuardedHttpsAgent } from '../common/ssrf-guard.js';
import { BillingService } from '../proto/gen/trawl/v1/account_billing_pb.js';
import { AccountService } from '../proto/gen/trawl/v1/accounts_pb.js';
import { ExtractService } from '../proto/gen/trawl/v1/extract_pb.js';
import { CrawlService } from '../proto/gen/trawl/v1/crawl_pb.js';
import { MapService } from '../proto/gen/trawl/v1/map_pb.js';
import { HealthService } from '../proto/gen/trawl/v1/health_pb.js';
import { SessionService } from '../proto/gen/trawl/v1/sessions_pb.js';
import { OAuthService } from '../proto/gen/trawl/v1/oauth_pb.js';
import { ScrapeService } from '../proto/gen/trawl/v1/scrape_pb.js';
import { ApiKeyService } from '../proto/gen/trawl/v1/api_keys_pb.js';
import { ArtifactService } from '../proto/gen/trawl/v1/artifacts_pb.js';
import { ARTIFACT_METHOD_AUTH, createArtifactService } from './artifacts/artifact-service.js';
import { WebhookService } from '../proto/gen/trawl/v1/webhooks_pb.js';
import { createWebhookService, WEBHOOK_METHOD_AUTH } from './webhooks/webhook-service.js';
import { ACCOUNT_METHOD_AUTH, createAccountService } from './accounts/account-service.js';
import { createAuthenticator } from './accounts/authenticator.js';
import { createSessionAuthenticator } from './accounts/session-authenticator.js';
import { createSessionTokens } from './accounts/session-tokens.js';
import { BILLING_METHOD_AUTH, createBillingService } from './billing/billing-service.js';
import { writeBillingSettings } from './billing/billing-settings.js';
import { createPaymentProvider } from './billing/payment-provider.js';
import { createExtractService } from './extract/extract-service.js';
import { startCrawlDelivery } from './crawl/crawl-delivery.js';
import { startCrawlReportConsumer } from './crawl/crawl-reports.js';
import { createCrawlStorage } from './crawl/crawl-storage.js';
import { startCrawlScheduler } from './crawl/crawl-scheduler.js';
import { createCrawlService } from './crawl/crawl-service.js';
import { createMapService } from './map/map-service.js';
import { startDeliveryDispatcher } from './events/delivery-dispatcher.js';
import { startDeliveryReportConsumer } from './events/delivery-reports.js';
import { startOutboxRelay } from './events/outbox-relay.js';
import { createHealthService } from './health/health-service.js';
import { startWorkerRegistry } from './health/worker-registry.js';
import { startJobSignals } from './jobs/job-signals.js';
import { releasingEndedJobs } from './limits/dispatch-entitlement.js';
import { createLimits } from './limits/limits.js';
import { createJobLoader } from './jobs/job-view.js';
import { startKeyChanges } from './keys/key-changes.js';
import { createKeyLimits } from './keys/key-limits.js';
import { createKeyService, KEY_METHOD_AUTH } from './keys/key-service.js';
import { createSessionService, SESSION_METHOD_AUTH } from './sessions/session-service.js';
import { migrateDatabase } from './migrate.js';
import { loadConfiguredClients } from './oauth/clients.js';
import { createOAuthService, OAUTH_METHOD_AUTH } from './oauth/oauth-service.js';
import { createRedirectPolicy } from './oauth/redirect-policy.js';
import { createDispatcher } from './scheduler/dispatcher.js';
import { startReportConsumer } from './scheduler/report-consumer.js';
import { startSweeper } from './scheduler/sweeper.js';
import { createScrapeService } from './scrape/scrape-service.js';
import { createTierMemory } from './scrape/tier-memory.js';
import { createControlPlaneServer } from './server.js';

await runProcess('control-plane', async ({ config, log, nc, js, jsm, names, keys }) => {
  await migrateDatabase(config.databaseUrl, log);
  const pool = createPgPool(config, 20);
  await writeBillingSettings(pool, { creditsLowThresholdMicrocents: config.creditsLowThresholdMicrocents });
  await loadConfiguredClients(pool, config.oauth.clients);
  const redis = connectRedis(config);
  const clickhouse = createClickHouse(config);

  const limits = createLimits({ enabled: config.rateLimits, pool, redis, keys, publicBaseUrl: config.publicBaseUrl, log });
  const signals = releasingEndedJobs(startJobSignals(nc, names), limits.dispatch);
  const dispatcher = createDispatcher({ js, names, pool, log });
  const workers = startWorkerRegistry(nc, names, { windowMs: 15_000 });
  const tierMemory = createTierMemory({ redis, keys, ttlSeconds: config.tierMemoryTtlSeconds });
  const reports = await startReportConsumer({ js, jsm, names, pool, dispatcher, signals, log, tierMemory, readResult: (key) => redis.getBuffer(key),
    dropParkedInput: (jobId) => redis.del(...keys.parkedInputs(jobId)),
  });
  const crawlScheduler = startCrawlScheduler({ pool, js, names, log }, { intervalMs: 1_000 });
  const crawlReports = await startCrawlReportConsumer({ js, jsm, names, pool, redis, scheduler: crawlScheduler, log });
  const sweeper = startSweeper({ pool, dispatcher, signals, log }, { intervalMs: 2_000, unpublishedAfterMs: 3_000 });
  const deliveries = startDeliveryDispatcher({ pool, js, names, log, masterKeyHex: config.masterKeyHex });
  const relay = await startOutboxRelay({ pool, js, names, redis, log, deliveriesCreated: deliveries.wake });
  const deliveryReports = await startDeliveryReportConsumer({ js, jsm, names, pool, log, retryDelaysMs: config.webhooks.retryDelaysMs });
  const crawlStorage = createCrawlStorage(config.crawlStorage);
  const crawlDelivery = startCrawlDelivery({
    pool,
    redis,
    log,
    storage: crawlStorage,
    output: { endpoints: config.crawlOutput, masterKeyHex: config.masterKeyHex, guardedAgent: createGuardedHttpsAgent(config.ssrf) },
    retryDelaysMs: config.webhooks.retryDelaysMs,
  });

  const jobs = createJobLoader({ pool, redis, resultTtlSeconds: config.resultTtlSeconds });
  const sessionTokens = createSessionTokens(config.session);
  const services = { pool, redis, keys, dispatcher, signals, jobs, sessionTokens, llmConfigured: config.llm.baseUrl !== '', log };
  const authenticator = createAuthenticator(pool, { cacheMs: 30_000 });
  const keyLimits = createKeyLimits({ pool, redis, keys, testKeyDailyRequests: config.testKeyDailyRequests, cacheMs: 30_000 });
  const keyChanges = startKeyChanges(nc, names.apiKeyChangedSubject, [authenticator.forget, keyLimits.forget], (err) =>
    log.warn({ err }, 'a key change could not be announced to the other control planes'),
  );
  const redirects = createRedirectPolicy({ production: config.env === 'production', publicBaseUrl: config.publicBaseUrl, allowlist: config.oauth.redirectAllowlist });
  const server = createControlPlaneServer({
    routes: (router) => {
      router.service(ScrapeService, createScrapeService({
          ...services,
          availableTiers: config.availableTiers,
          documentPool: config.documentPool,
          resultTtlSeconds: config.resultTtlSeconds,
          masterKeyHex: config.masterKeyHex,
          entitlement: limits.dispatch,
          guard: config.ssrf,
          tierMemory,
          premiumProxies: config.premiumProxies,
        }));
      router.service(WebhookService, createWebhookService({ pool, nc, names, guard: config.ssrf, masterKeyHex: config.masterKeyHex }));
      router.service(ExtractService, createExtractService(services));
      router.service(MapService, createMapService(services));
      router.service(SessionService, createSessionService({ pool, masterKeyHex: config.masterKeyHex }));
      router.service(ArtifactService, createArtifactService({ redis, keys }));
      router.service(CrawlService, createCrawlService({
          pool,
          redis,
          scheduler: crawlScheduler,
          availableTiers: config.availableTiers,
          premiumProxies: config.premiumProxies,
          delivery: { storage: crawlStorage, masterKeyHex: config.masterKeyHex },
        }));
      router.service(HealthService, createHealthService({ pool, redis, nc, clickhouse, workers, jsm, names, llmConfigured: services.llmConfigured }));
      router.service(ApiKeyService, createKeyService({ pool, clickhouse, masterKeyHex: config.masterKeyHex, limits: keyLimits, changes: keyChanges }));
      router.service(AccountService, createAccountService({ pool, sessionTokens, welcomeBonus: config.welcomeBonus }));
      router.service(OAuthService, createOAuthService({ pool, masterKeyHex: config.masterKeyHex, redirects, keyRevoked: (keyId) => keyChanges.announce(keyId) }));
      const payments = { paymentProvider: createPaymentProvider(config.payment), paymentWebhookSecret: config.payment.webhookSecret };
      router.service(BillingService, createBillingService({ pool, ...payments, tiersCaughtUp: limits.tiersCaughtUp }));
    },
    authenticator,
    sessions: createSessionAuthenticator(pool, sessionTokens),
    methodAuth: new Map([
      [HealthService.method.check, 'none'],
      [HealthService.method.ocr, 'either'],
      ...ACCOUNT_METHOD_AUTH,
      ...BILLING_METHOD_AUTH,
      ...OAUTH_METHOD_AUTH,
      ...KEY_METHOD_AUTH,
      ...SESSION_METHOD_AUTH,
      ...ARTIFACT_METHOD_AUTH,
      ...WEBHOOK_METHOD_AUTH,
    ]),
    rateLimits: limits.interceptor,
    keyLimits,
    log,
  });
  server.listen(config.controlPlanePort, config.controlPlaneHost);
  await once(server, 'listening');
  log.info({ url: config.controlPlaneUrl }, 'control plane listening');

  return {
    async stop() {
      server.close();
      await sweeper.stop();
      await crawlReports.stop();
      await crawlDelivery.stop();
      await crawlScheduler.stop();
      await relay.stop();
      await deliveries.stop();
      await deliveryReports.stop();
      await reports.stop();
      await dispatcher.stop();
      workers.stop();
      signals.stop();
      keyChanges.stop();
      await limits.stop();
      await Promise.allSettled([pool.end(), redis.quit(), clickhouse.close()]);
    },
  };
});
