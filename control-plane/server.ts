import http2 from 'node:http2';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { TrawlError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { toConnectError } from '../common/rpc-errors.js';

/**
 * The transport: one plaintext HTTP/2 port answering gRPC, gRPC-Web and
 * Connect. It only maps requests to the service objects; every error leaves
 * through one conversion.
 */
export function createControlPlaneServer(routes: (router: ConnectRouter) => void, log: Logger): http2.Http2Server {
  const errors: Interceptor = (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (!(err instanceof TrawlError)) log.error({ err, method: req.method.name }, 'unexpected error in a control-plane call');
      throw toConnectError(err);
    }
  };
  return http2.createServer(connectNodeAdapter({ routes, interceptors: [errors] }));
}
