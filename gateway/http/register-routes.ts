import { ConnectError } from '@connectrpc/connect';
import type { Context } from 'koa';
import { TrawlError } from '../../common/errors.js';
import { REQUEST_BODY_LIMIT_BYTES } from '../../common/limits.js';
import { fromConnectError } from '../../common/rpc-errors.js';
import { requireCredential } from './authentication.js';
import { readAnswerHeaders } from './call-options.js';
import { deprecationWarning, setDeprecationHeaders } from './deprecation.js';
import type { IpLimiter } from './ip-limits.js';
import { readRequestBody } from './form-body.js';
import { hasBody } from './json-body.js';
import { refuseNulCharacters } from './nul-check.js';
import { addErrorFields } from './request-context.js';
import { routeDispatch, type RouteHandle } from './route-dispatch.js';
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
  if (raw instanceof ConnectError) readAnswerHeaders(ctx, raw.metadata);
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
function routeMiddleware(route: AnyRoute, publicBaseUrl: string, ipLimiter: IpLimiter | undefined) {
  const label = routeLabel(route);
  const { body: bodySchema, params: paramsSchema, query: querySchema } = route.request ?? {};
  const limit = bodyLimitOf(route);
  const warning = route.deprecation ? deprecationWarning(route.path, route.deprecation, publicBaseUrl) : undefined;
  return async (ctx: Context, pathParams: Record<string, string | undefined>) => {
    ctx.state.trawl.route = label;
    if (route.probe) ctx.state.trawl.probe = true;
    if (route.deprecation && warning) {
      setDeprecationHeaders(ctx, route.deprecation, warning);
      addErrorFields(ctx, { warnings: [warning] });
    }
    // Per-address limits (SPEC 8.2) count every attempt, before the credential and the body are looked at.
    const ipLimits = ipLimiter && route.ipLimits;
    if (ipLimits) await ipLimiter.checkAddress(ctx, ipLimits);
    requireCredential(ctx, route.auth);
    const params = paramsSchema ? parseOrRefuse(paramsSchema, pathParams, 'path') : undefined;
    const query = querySchema ? parseOrRefuse(querySchema, ctx.query, 'query') : undefined;
    let body: unknown;
    let rawBody: Buffer | undefined;
    if (bodySchema) {
      const raw = await readRequestBody(ctx.req, limit, route.bodyTypes);
      if (raw?.scan.mayHoldNul) refuseNulCharacters(raw.value, route.nulAllowedFields);
      // No body reads as an empty object; a body that is JSON null is judged as sent (not an object).
      body = parseOrRefuse(bodySchema, raw === undefined ? {} : raw.value, 'body');
      if (ipLimits) await ipLimiter.checkEmail(ctx, ipLimits, body);
      if (route.keepRawBody) rawBody = raw?.bytes;
    } else if (hasBody(ctx.req)) {
      throw new TrawlError('VALIDATION_ERROR', `${label} takes no request body`);
    }
    try {
      await route.handler({ ctx, body, params, query, rawBody });
    } catch (err) {
      throw routeError(route, ctx, err);
    }
    if (warning && ctx.body !== null && typeof ctx.body === 'object') ctx.body = { ...(ctx.body as object), warnings: [warning] };
  };
}

/** A route's own form of its failures (RouteSpec.errorAs), around its whole pipeline. */
function withErrorsAs(route: AnyRoute, middleware: RouteHandle): RouteHandle {
  const errorAs = route.errorAs;
  if (!errorAs) return middleware;
  return async (ctx, pathParams) => {
    try {
      await middleware(ctx, pathParams);
    } catch (err) {
      throw err instanceof TrawlError ? errorAs(err, ctx) : err;
    }
  };
}

/** The middleware that finds a request's route in the table and runs its pipeline. */
export function routeTableMiddleware(routes: readonly AnyRoute[], publicBaseUrl: string, ipLimiter?: IpLimiter) {
  return routeDispatch(
    routes.map((route) => ({ method: route.method, path: koaPath(route.path), handle: withErrorsAs(route, routeMiddleware(route, publicBaseUrl, ipLimiter)) })),
  );
}
