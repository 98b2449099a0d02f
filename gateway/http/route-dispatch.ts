import FindMyWay from 'find-my-way';
import type { Context, Next } from 'koa';
import { TrawlError } from '../../common/errors.js';

/** A route's pipeline, given the path's parameters (decoded). */
export type RouteHandle = (ctx: Context, pathParams: Record<string, string | undefined>) => Promise<void>;

export interface DispatchedRoute {
  method: string;
  /** The path with `:name` parameters: /api/v1/jobs/:job_id. */
  path: string;
  handle: RouteHandle;
}

/** The methods the API answers at all; any other is refused with 405 wherever it is sent. */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * Longest path parameter the tree matches. Parameters are validated by the
 * route's own schema afterwards, which gives the caller a field error; the
 * tree's default (100) would turn a long identifier into a 404 instead.
 */
const MAX_PARAM_LENGTH = 8_192;

const noop = () => undefined;

/**
 * Finds the route of a request in a radix tree (find-my-way): one walk of
 * the path whatever the number of routes. Paths match without regard to
 * case or a trailing slash; a GET route answers HEAD too. A path that
 * exists under other methods answers OPTIONS with its Allow list and any
 * other method with 405 METHOD_NOT_ALLOWED and the same Allow header; a
 * path with malformed percent-encoding is a 400; an unknown path falls
 * through (the request context answers 404 NOT_FOUND).
 */
export function routeDispatch(routes: readonly DispatchedRoute[]) {
  const tree = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: false, maxParamLength: MAX_PARAM_LENGTH, onBadUrl: noop });
  const methods = new Set<string>();
  for (const route of routes) {
    for (const method of route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]) {
      tree.on(method as FindMyWay.HTTPMethod, route.path, noop, { handle: route.handle });
      methods.add(method);
    }
  }
  const allowedAt = (path: string) => [...methods].filter((method) => tree.find(method as FindMyWay.HTTPMethod, path)?.store);

  return async (ctx: Context, next: Next) => {
    const path = ctx.path;
    const found = KNOWN_METHODS.has(ctx.method) ? tree.find(ctx.method as FindMyWay.HTTPMethod, path) : null;
    if (found) {
      const store = found.store as { handle: RouteHandle } | null;
      if (!store) throw new TrawlError('VALIDATION_ERROR', 'The request path holds malformed percent-encoding');
      return store.handle(ctx, found.params);
    }
    const allowed = allowedAt(path);
    if (allowed.length > 0) ctx.set('Allow', allowed.join(', '));
    if (!KNOWN_METHODS.has(ctx.method)) throw new TrawlError('METHOD_NOT_ALLOWED', `${ctx.method} is not a method this API answers`);
    if (allowed.length === 0) return next();
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw new TrawlError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on this path; it takes ${allowed.join(', ')}`);
  };
}
