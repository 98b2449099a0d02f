import http2 from 'node:http2';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { TrawlError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { toConnectError } from '../common/rpc-errors.js';
import { authenticationInterceptor, type AuthenticationOptions } from './accounts/caller.js';
import { dependencyUnavailable } from './dependency-errors.js';

export interface ControlPlaneServerOptions extends AuthenticationOptions {
  routes: (router: ConnectRouter) => void;
  log: Logger;
}

/**
 * What every call passes through, outermost first: the one conversion of
 * errors to gRPC statuses (a lost database or Redis connection becomes
 * SERVICE_UNAVAILABLE), then authentication.
 */
export function controlPlaneInterceptors(opts: Omit<ControlPlaneServerOptions, 'routes'>): Interceptor[] {
  const errors: Interceptor = (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      const known = err instanceof TrawlError ? err : dependencyUnavailable(err);
      if (!known) opts.log.error({ err, method: req.method.name }, 'unexpected error in a control-plane call');
      throw toConnectError(known ?? err);
    }
  };
  return [errors, authenticationInterceptor(opts)];
}

/**
 * The transport: one plaintext HTTP/2 port answering gRPC, gRPC-Web and
 * Connect. Answers are not compressed: the gateway sits next to it.
 */
export function createControlPlaneServer(opts: ControlPlaneServerOptions): http2.Http2Server {
  return http2.createServer(connectNodeAdapter({ routes: opts.routes, interceptors: controlPlaneInterceptors(opts), acceptCompression: [] }));
}
