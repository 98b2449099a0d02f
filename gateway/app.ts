import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { JetStreamClient } from '@nats-io/jetstream';
import { TrawlError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { NatsNames } from '../common/nats-names.js';
import type { ControlPlane } from './control-plane-client.js';
import { requestContext } from './middleware/request-context.js';
import { requestLog } from './middleware/request-log.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { renderReferencePage } from './openapi/reference-page.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerScrapeRoutes } from './routes/scrape.js';
import { registerExtractRoutes } from './routes/extract.js';

export interface GatewayDeps {
  controlPlane: ControlPlane;
  js: JetStreamClient;
  names: NatsNames;
  log: Logger;
  publicBaseUrl: string;
}

const PUBLIC_ROUTES = /^(\/api\/v1\/(health(\/.*)?|status|openapi\.json|docs)|\/health-check)$/;

/** Routes that take a key refuse a request without one here, before any call inward. */
function requireApiKey() {
  return async (ctx: Koa.Context, next: Koa.Next) => {
    if (!PUBLIC_ROUTES.test(ctx.path) && ctx.path.startsWith('/api/') && !ctx.get('X-API-Key')) {
      throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
    }
    await next();
  };
}

function jsonBody(limit: string, label: string) {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    encoding: 'utf-8',
    onError: (err) => {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new TrawlError('PAYLOAD_TOO_LARGE', `The request body is over the ${label} limit`);
      throw new TrawlError('VALIDATION_ERROR', 'The request body is not valid JSON', { reason: err.message });
    },
  });
}

export function createGatewayApp(deps: GatewayDeps): Koa {
  const app = new Koa({ proxy: true });
  const router = new Router();
  const openapi = buildOpenApiDocument(deps.publicBaseUrl);
  const referencePage = renderReferencePage(openapi);

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  router.get('/api/v1/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = referencePage;
  });
  registerHealthRoutes(router, deps);
  registerScrapeRoutes(router, deps);
  registerJobRoutes(router, deps);
  registerExtractRoutes(router, deps);

  app.use(requestLog(deps));
  app.use(requestContext(deps.log));
  app.use(requireApiKey());
  // Extract takes up to 5 MB of content (escaped in JSON); every other route 1 MB.
  const standardBody = jsonBody('1mb', '1 MB');
  const extractBody = jsonBody('12mb', '12 MB');
  app.use((ctx, next) => (ctx.path === '/api/v1/extract' ? extractBody(ctx, next) : standardBody(ctx, next)));
  app.use(async (ctx, next) => {
    if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && ctx.request.length && !ctx.is('application/json')) {
      throw new TrawlError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
    }
    await next();
  });
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}
