import { once } from 'node:events';
import { createClickHouse, createPgPool, connectRedis } from '../common/connections.js';
import { runProcess } from '../common/process-runner.js';
import { ExtractService } from '../proto/gen/trawl/v1/extract_pb.js';
import { HealthService } from '../proto/gen/trawl/v1/health_pb.js';
import { ScrapeService } from '../proto/gen/trawl/v1/scrape_pb.js';
import { createAuthenticator } from './accounts/authenticator.js';
import { createSessionAuthenticator } from './accounts/session-authenticator.js';
import { createSessionTokens } from './accounts/session-tokens.js';
import { createExtractService } from './extract/extract-service.js';
import { createHealthService } from './health/health-service.js';
import { startWorkerRegistry } from './health/worker-registry.js';
import { startJobSignals } from './jobs/job-signals.js';
import { createJobLoader } from './jobs/job-view.js';
import { migrateDatabase } from './migrate.js';
import { createDispatcher } from './scheduler/dispatcher.js';
import { startReportConsumer } from './scheduler/report-consumer.js';
import { startSweeper } from './scheduler/sweeper.js';
import { createScrapeService } from './scrape/scrape-service.js';
import { createControlPlaneServer } from './server.js';

await runProcess('control-plane', async ({ config, log, nc, js, jsm, names, keys }) => {
  await migrateDatabase(config.databaseUrl, log);
  const pool = createPgPool(config, 20);
  const redis = connectRedis(config);
  const clickhouse = createClickHouse(config);

  const signals = startJobSignals(nc, names);
  const dispatcher = createDispatcher({ js, names, pool, log });
  const workers = startWorkerRegistry(nc, names, { windowMs: 15_000 });
  const reports = await startReportConsumer({ js, jsm, names, pool, dispatcher, signals, log });
  const sweeper = startSweeper({ pool, dispatcher, signals, log }, { intervalMs: 2_000, unpublishedAfterMs: 3_000 });

  const jobs = createJobLoader({ pool, redis, resultTtlSeconds: config.resultTtlSeconds });
  const sessionTokens = createSessionTokens(config.session);
  const services = { pool, redis, keys, dispatcher, signals, jobs, sessionTokens, llmConfigured: config.llm.baseUrl !== '', log };
  const server = createControlPlaneServer({
    routes: (router) => {
      router.service(ScrapeService, createScrapeService({ ...services, availableTiers: config.availableTiers }));
      router.service(ExtractService, createExtractService(services));
      router.service(HealthService, createHealthService({ pool, redis, nc, clickhouse, workers }));
    },
    authenticator: createAuthenticator(pool, { cacheMs: 30_000 }),
    sessions: createSessionAuthenticator(pool, sessionTokens),
    methodAuth: new Map([[HealthService.method.check, 'none']]),
    log,
  });
  server.listen(config.controlPlanePort, config.controlPlaneHost);
  await once(server, 'listening');
  log.info({ url: config.controlPlaneUrl }, 'control plane listening');

  return {
    async stop() {
      server.close();
      await sweeper.stop();
      await reports.stop();
      await dispatcher.stop();
      workers.stop();
      signals.stop();
      await Promise.allSettled([pool.end(), redis.quit(), clickhouse.close()]);
    },
  };
});
