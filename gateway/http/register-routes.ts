import type Router from '@koa/router';
import { ConnectError } from '@connectrpc/connect';
import type { Context } from 'koa';
import { TrawlError } from '../../common/errors.js';
import { REQUEST_BODY_LIMIT_BYTES } from '../../common/limits.js';
import { fromConnectError } from '../../common/rpc-errors.js';
import { requireCredential } from './authentication.js';
import { deprecationWarning, setDeprecationHeaders } from './deprecation.js';
import { hasBody, readJsonBody } from './json-body.js';
import { refuseNulCharacters } from './nul-check.js';
import { addErrorFields } from './request-context.js';
import { routeLabel, type AnyRoute } from './route.js';
import { parseOrRefuse } from './validation-error.js';

/** Koa's form of an OpenAPI path: /api/v1/jobs/{job_id} -> /api/v1/jobs/:job_id. */
export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The body limit of a route that takes a body. */
export function bodyLimitOf(route: AnyRoute): number {
  return route.bodyLimitBytes ?? REQUEST_BODY_LIMIT_BYTES;
}

/** The one place a failure of a handler or of its control-plane call becomes the public error, with the route's extra fields. */
function routeError(route: AnyRoute, ctx: Context, raw: unknown): unknown {
  if (!(raw instanceof TrawlError) && !(raw instanceof ConnectError)) return raw;
  const err = fromConnectError(raw);
  const jobId = err.details?.['job_id'];
  if (typeof jobId === 'string') ctx.state.trawl.jobId = jobId;
  const extra = route.errorFields?.(err, ctx);
  if (extra) addErrorFields(ctx, extra);
  return err;
}

/**
 * The request pipeline every route shares, in order: route label and
 * deprecation marks, credential presence, path and query validation, the
 * body (media type, limit, depth, UTF-8, JSON, NUL, schema), the handler,
 * and error mapping.
 */
function routeMiddleware(route: AnyRoute, publicBaseUrl: string) {
  const label = routeLabel(route);
  const { body: bodySchema, params: paramsSchema, query: querySchema } = route.request ?? {};
  const limit = bodyLimitOf(route);
  const warning = route.deprecation ? deprecationWarning(route.path, route.deprecation, publicBaseUrl) : undefined;
  return async (ctx: Context) => {
    ctx.state.trawl.route = label;
    if (route.deprecation && warning) {
      setDeprecationHeaders(ctx, route.deprecation, warning);
      addErrorFields(ctx, { warnings: [warning] });
    }
    requireCredential(ctx, route.auth);
    const params = paramsSchema ? parseOrRefuse(paramsSchema, ctx.params, 'path') : undefined;
    const query = querySchema ? parseOrRefuse(querySchema, ctx.query, 'query') : undefined;
    let body: unknown;
    if (bodySchema) {
      const raw = await readJsonBody(ctx.req, limit);
      if (raw?.scan.mayHoldNul) refuseNulCharacters(raw.value, route.nulAllowedFields);
      body = parseOrRefuse(bodySchema, raw?.value ?? {}, 'body');
    } else if (hasBody(ctx.req)) {
      throw new TrawlError('VALIDATION_ERROR', `${label} takes no request body`);
    }
    try {
      await route.handler({ ctx, body, params, query });
    } catch (err) {
      throw routeError(route, ctx, err);
    }
    if (warning && ctx.body !== null && typeof ctx.body === 'object') ctx.body = { ...(ctx.body as object), warnings: [warning] };
  };
}

/** Registers every route of the table on the router. */
export function registerRoutes(router: Router, routes: readonly AnyRoute[], publicBaseUrl: string): void {
  for (const route of routes) router.register(koaPath(route.path), [route.method], routeMiddleware(route, publicBaseUrl));
}
