import { jetstream } from '@nats-io/jetstream';
import { loadConfig } from '../common/config.js';
import { connectNats, createClickHouse, ensureStreams, jetstreamManager } from '../common/connections.js';
import { createLogger } from '../common/logger.js';
import { natsNames } from '../common/nats-names.js';
import { ensureAnalyticsSchema } from './schema.js';
import { startRequestLogSink } from './sink.js';

const config = loadConfig();
const log = createLogger('analytics-sink', config.logLevel);
const bootstrap = createClickHouse(config, 'default');
await ensureAnalyticsSchema(bootstrap, config.clickhouseDatabase);
await bootstrap.close();

const clickhouse = createClickHouse(config);
const nc = await connectNats(config, 'analytics-sink');
const jsm = await jetstreamManager(nc);
const names = natsNames(config.natsPrefix);
await ensureStreams(jsm, names);
const sink = await startRequestLogSink(
  { js: jetstream(nc), jsm, names, clickhouse, log },
  { database: config.clickhouseDatabase, batchSize: 500, flushIntervalMs: 1_000 },
);
log.info('analytics sink started');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'analytics sink stopping');
  await sink.stop();
  await nc.drain().catch(() => undefined);
  await clickhouse.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
