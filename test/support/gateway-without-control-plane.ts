import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../common/logger.js';
import { createGatewayApp } from '../../gateway/app.js';
import { createControlPlaneClient } from '../../gateway/control-plane-client.js';
import { createRequestLogBatcher } from '../../gateway/http/request-log-batcher.js';
import { closedPort } from './closed-port.js';

/**
 * The gateway app, with its whole route table, in this process, calling a
 * control plane that is not there: for routing, request checks and
 * dependency-down answers. Request-log batches it publishes land in `published`.
 */
export async function gatewayWithoutControlPlane(): Promise<{ baseUrl: string; published: Uint8Array[]; close(): void }> {
  const published: Uint8Array[] = [];
  const log = createLogger('gateway-test', 'fatal');
  const app = createGatewayApp({
    controlPlane: createControlPlaneClient(`http://127.0.0.1:${await closedPort()}`),
    requestLogs: createRequestLogBatcher(async (data) => void published.push(data), log, { windowMs: 20, maxRecords: 1_000 }),
    log,
    publicBaseUrl: 'http://127.0.0.1',
    trustedProxies: [],
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, published, close: () => server.close() };
}
