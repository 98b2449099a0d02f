import { ConnectError, type Interceptor } from '@connectrpc/connect';
import { addLimitHeaders, FOLLOW_UP_HEADER, HTTP_METHOD_HEADER } from '../../common/rate-limit-headers.js';
import { withResponseHeaders } from '../../common/rpc-errors.js';
import { findCaller } from '../accounts/caller.js';
import { tierOfCaller, type AccountTiers } from './account-tiers.js';
import { RateLimitRefusal, requestCost, type KeyLimiter } from './key-limiter.js';

/**
 * Runs after authentication: an API-key call spends its share of the key's
 * limits at the account's tier as Postgres has it now, holds a concurrency
 * lease until it ends, and answers with the SPEC 8.3 headers whether it
 * succeeds or fails. Session calls (the dashboard) and unauthenticated
 * methods are not counted: the limits are per API key (SPEC 5 rule 6).
 */
/** The call's failure, carrying the limit headers to the gateway. */
function withHeaders(err: unknown, headers: Record<string, string>): unknown {
  const failed = withResponseHeaders(err, {});
  if (failed instanceof ConnectError) addLimitHeaders(failed.metadata, 'key', headers);
  return failed;
}

export function limitsInterceptor(deps: { tiers: AccountTiers; limiter: KeyLimiter }): Interceptor {
  return (next) => async (req) => {
    const caller = findCaller(req.contextValues);
    if (!caller || caller.credential !== 'api_key' || !caller.keyId || req.header.has(FOLLOW_UP_HEADER)) return next(req);
    const tier = await tierOfCaller(deps.tiers, caller);
    let call;
    try {
      call = await deps.limiter.admit(caller.keyId, tier, requestCost(req.header.get(HTTP_METHOD_HEADER)));
    } catch (err) {
      throw err instanceof RateLimitRefusal ? withHeaders(err, err.headers) : err;
    }
    try {
      const res = await next(req);
      addLimitHeaders(res.header, 'key', call.headers);
      return res;
    } catch (err) {
      throw withHeaders(err, call.headers);
    } finally {
      call.release();
    }
  };
}
