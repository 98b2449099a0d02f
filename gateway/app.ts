import Koa from 'koa';
import type { Logger } from '../common/logger.js';
import { routeTable } from './api/routes.js';
import type { ControlPlane } from './control-plane-client.js';
import { clientIpResolver } from './http/client-ip.js';
import type { IpLimiter } from './http/ip-limits.js';
import { routeTableMiddleware } from './http/register-routes.js';
import { requestContext } from './http/request-context.js';
import { requestLog } from './http/request-log.js';
import type { RequestLogBatcher } from './http/request-log-batcher.js';

export interface GatewayDeps {
  controlPlane: ControlPlane;
  requestLogs: RequestLogBatcher;
  log: Logger;
  publicBaseUrl: string;
  /** Proxies whose X-Forwarded-For is believed (TRAWL_TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
  /** Memory for the rendered answers of ended jobs (gateway/api/jobs/job-bodies.ts); absent: none kept. */
  jobBodiesBytes?: number;
  /** Per-address limits of SPEC 8.2 (a route's `ipLimits`); absent: not enforced. */
  ipLimiter?: IpLimiter;
}

export function createGatewayApp(deps: GatewayDeps): Koa {
  // The client address comes from clientIpResolver, which believes X-Forwarded-For only from trusted proxies.
  const app = new Koa({ proxy: false });
  const clientIp = clientIpResolver(deps.trustedProxies);
  app.use(requestLog({ batcher: deps.requestLogs, clientIp }));
  app.use(requestContext(deps.log, clientIp));
  app.use(routeTableMiddleware(routeTable(deps), deps.publicBaseUrl, deps.ipLimiter));
  return app;
}
