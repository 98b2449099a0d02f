import cluster from 'node:cluster';
import { loadConfig } from '../common/config.js';
import { connectRedis } from '../common/connections.js';
import { createLogger } from '../common/logger.js';
import { runProcess } from '../common/process-runner.js';
import { createGatewayApp } from './app.js';
import { superviseGateways } from './cluster.js';
import { createControlPlaneClient } from './control-plane-client.js';
import { createIpLimiter } from './http/ip-limits.js';
import { createRequestLogBatcher } from './http/request-log-batcher.js';

/** Request logs go out as one batch per 100 ms, or per 500 records when busier. */
const REQUEST_LOG_BATCH = { windowMs: 100, maxRecords: 500 };

const config = loadConfig();
if (cluster.isPrimary && config.gatewayProcesses > 1) {
  // This process only hands connections to the gateway processes it supervises.
  superviseGateways(config.gatewayProcesses, createLogger('gateway', config.logLevel));
} else {

  await runProcess('gateway', async ({ config, log, js, names, keys }) => {
    // Redis counts the per-address limits, shared by every gateway process.
    const redis = config.rateLimits ? connectRedis(config) : undefined;
    const requestLogs = createRequestLogBatcher((data) => js.publish(names.logsSubject, data), log, REQUEST_LOG_BATCH);
    const app = createGatewayApp({
      controlPlane: createControlPlaneClient(config.controlPlaneUrl),
      requestLogs,
      log,
      publicBaseUrl: config.publicBaseUrl,
      trustedProxies: config.trustedProxies,
      jobBodiesBytes: config.gatewayJobBodiesBytes,
      ...(redis ? { ipLimiter: createIpLimiter(redis, keys) } : {}),
    });
    const server = app.listen(config.gatewayPort, config.gatewayHost, () => {
      log.info({ url: config.publicBaseUrl }, 'gateway listening');
    });
    // Sync scrapes hold the connection up to the 85 s safe deadline.
    server.requestTimeout = 120_000;
    server.headersTimeout = 30_000;
    server.keepAliveTimeout = 65_000;
    return {
      async stop() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        // Every answered request's record goes out before NATS is drained.
        await requestLogs.stop();
        await redis?.quit();
      },
    };
  });
}
