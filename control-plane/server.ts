import http2 from 'node:http2';
import { ConnectError, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { TrawlError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { toConnectError } from '../common/rpc-errors.js';
import { authenticationInterceptor, type AuthenticationOptions } from './accounts/caller.js';
import { dependencyUnavailable } from './dependency-errors.js';
import { keyLimitsInterceptor } from './keys/key-limits-interceptor.js';
import { createUnaryHandler, recordUnaryMethods } from './unary-handler.js';
import type { KeyLimits } from './keys/key-limits.js';

export interface ControlPlaneServerOptions extends AuthenticationOptions {
  routes: (router: ConnectRouter) => void;
  log: Logger;
  /** Per-key request limits and spend budgets (keys/key-limits.ts); absent: not enforced. */
  keyLimits?: KeyLimits;
  /** Per-API-key rate limits by balance tier (limits/limits-interceptor.ts); absent when TRAWL_RATE_LIMITS is off. */
  rateLimits?: Interceptor;
}

/**
 * What every call passes through, outermost first: the one conversion of
 * errors to gRPC statuses (a lost database or Redis connection becomes
 * SERVICE_UNAVAILABLE), then authentication, then the rate limits of the key's balance tier, then per-key limits.
 */
export function controlPlaneInterceptors(opts: Omit<ControlPlaneServerOptions, 'routes'>): Interceptor[] {
  const errors: Interceptor = (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      // A ConnectError here was built from a TrawlError on purpose (to carry response headers).
      const known = err instanceof TrawlError || err instanceof ConnectError ? err : dependencyUnavailable(err);
      if (!known) opts.log.error({ err, method: req.method.name }, 'unexpected error in a control-plane call');
      throw toConnectError(known ?? err);
    }
  };
  return [
    errors,
    authenticationInterceptor(opts),
    ...(opts.rateLimits ? [opts.rateLimits] : []),
    ...(opts.keyLimits ? [keyLimitsInterceptor(opts.keyLimits)] : []),
  ];
}

/**
 * The transport: one plaintext HTTP/2 port answering gRPC, gRPC-Web and
 * Connect. The gateway's calls (Connect, binary, unary) are answered by the
 * direct handler of unary-handler.ts, everything else by connect-node's
 * adapter, behind the same interceptors. Answers are not compressed: the
 * gateway sits next to it.
 */
export function createControlPlaneServer(opts: ControlPlaneServerOptions): http2.Http2Server {
  const interceptors = controlPlaneInterceptors(opts);
  const methods: Parameters<typeof recordUnaryMethods>[0] = new Map();
  const fallback = connectNodeAdapter({ routes: (router) => opts.routes(recordUnaryMethods(methods, router)), interceptors, acceptCompression: [] });
  return http2.createServer(createUnaryHandler({ methods, interceptors, fallback }));
}
