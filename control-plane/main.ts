import { jetstream } from '@nats-io/jetstream';
import { loadConfig } from '../common/config.js';
import { connectNats, connectRedis, createClickHouse, createPgPool, ensureStreams, jetstreamManager } from '../common/connections.js';
import { createLogger } from '../common/logger.js';
import { natsNames } from '../common/nats-names.js';
import { ExtractService } from '../proto/gen/trawl/v1/extract_pb.js';
import { HealthService } from '../proto/gen/trawl/v1/health_pb.js';
import { ScrapeService } from '../proto/gen/trawl/v1/scrape_pb.js';
import { createAuthenticator } from './accounts/authenticator.js';
import { createExtractService } from './extract/extract-service.js';
import { createHealthService } from './health/health-service.js';
import { startWorkerRegistry } from './health/worker-registry.js';
import { migrateDatabase } from './migrate.js';
import { startReportConsumer } from './scheduler/report-consumer.js';
import { startSweeper } from './scheduler/sweeper.js';
import { createScrapeService } from './scrape/scrape-service.js';
import { createControlPlaneServer } from './server.js';

const config = loadConfig();
const log = createLogger('control-plane', config.logLevel);

await migrateDatabase(config.databaseUrl, log);
const pool = createPgPool(config, 20);
const redis = connectRedis(config);
const clickhouse = createClickHouse(config);
const nc = await connectNats(config, 'control-plane');
const jsm = await jetstreamManager(nc);
const js = jetstream(nc);
const names = natsNames(config.natsPrefix);
await ensureStreams(jsm, names);

const workers = startWorkerRegistry(nc, names, { windowMs: 15_000 });
const authenticator = createAuthenticator(pool, { cacheMs: 30_000 });
const reports = await startReportConsumer({ nc, js, jsm, names, pool, log });
const sweeper = startSweeper({ pool, js, nc, names, log }, { intervalMs: 2_000, unpublishedAfterMs: 3_000 });

const scrape = createScrapeService({ pool, redis, nc, js, names, authenticator, availableTiers: config.availableTiers, log });
const extract = createExtractService({ pool, redis, nc, js, names, authenticator, llmConfigured: config.llm.baseUrl !== '', log });
const health = createHealthService({ pool, redis, nc, clickhouse, workers });
const server = createControlPlaneServer((router) => {
  router.service(ScrapeService, scrape);
  router.service(ExtractService, extract);
  router.service(HealthService, health);
}, log);

server.listen(config.controlPlanePort, config.controlPlaneHost, () => {
  log.info({ url: config.controlPlaneUrl }, 'control plane listening');
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'control plane stopping');
  server.close();
  await sweeper.stop();
  await reports.stop();
  workers.stop();
  await nc.drain().catch(() => undefined);
  await Promise.allSettled([pool.end(), redis.quit(), clickhouse.close()]);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
