import { jetstream } from '@nats-io/jetstream';
import { loadConfig } from '../common/config.js';
import { connectNats, ensureStreams, jetstreamManager } from '../common/connections.js';
import { createLogger } from '../common/logger.js';
import { natsNames } from '../common/nats-names.js';
import { createGatewayApp } from './app.js';
import { createControlPlaneClient } from './control-plane-client.js';

const config = loadConfig();
const log = createLogger('gateway', config.logLevel);
const nc = await connectNats(config, 'gateway');
const names = natsNames(config.natsPrefix);
await ensureStreams(await jetstreamManager(nc), names);

const app = createGatewayApp({
  controlPlane: createControlPlaneClient(config.controlPlaneUrl),
  js: jetstream(nc),
  names,
  log,
  publicBaseUrl: config.publicBaseUrl,
});
const server = app.listen(config.gatewayPort, config.gatewayHost, () => {
  log.info({ url: config.publicBaseUrl }, 'gateway listening');
});
// Sync scrapes hold the connection up to the 85 s safe deadline.
server.requestTimeout = 120_000;
server.headersTimeout = 30_000;
server.keepAliveTimeout = 65_000;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'gateway stopping');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await nc.drain().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
