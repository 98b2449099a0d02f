import { createContextKey, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import type { DescMethod } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import type { AuthenticatedKey } from './api-keys.js';
import type { Authenticator } from './authenticator.js';

/** The account and key a call was authenticated as; set by the authentication interceptor. */
const callerKey = createContextKey<AuthenticatedKey | undefined>(undefined, { description: 'authenticated caller' });

/** The caller of an authenticated method. */
export function callerOf(ctx: HandlerContext): AuthenticatedKey {
  const caller = ctx.values.get(callerKey);
  if (!caller) throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
  return caller;
}

/**
 * Authenticates every call except the public methods with the API key in
 * the `x-api-key` header, hands the caller to the service through the call's
 * context values, and names the account and key in the response headers
 * (the gateway's request log reads them).
 */
export function authenticationInterceptor(authenticator: Authenticator, publicMethods: readonly DescMethod[]): Interceptor {
  const open = new Set<DescMethod>(publicMethods);
  return (next) => async (req) => {
    if (open.has(req.method)) return next(req);
    const caller = await authenticator.authenticate(req.header.get('x-api-key'));
    req.contextValues.set(callerKey, caller);
    const res = await next(req);
    res.header.set('trawl-account-id', caller.accountId);
    res.header.set('trawl-api-key-id', caller.keyId);
    return res;
  };
}
