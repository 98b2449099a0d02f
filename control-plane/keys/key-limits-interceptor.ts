import type { Interceptor } from '@connectrpc/connect';
import { FOLLOW_UP_HEADER } from '../../common/rate-limit-headers.js';
import { findCaller } from '../accounts/caller.js';
import { keyBudgetExceeded, type KeyLimits } from './key-limits.js';

/**
 * Per-key limits on every call made with an API key, after authentication:
 * the request count (and a test key's daily cap) before the call, and the
 * spend budget, which Postgres holds when the call admits a job, turned into
 * KEY_BUDGET_EXCEEDED on the way out. Session calls pass untouched.
 */
export function keyLimitsInterceptor(limits: KeyLimits): Interceptor {
  return (next) => async (req) => {
    const caller = findCaller(req.contextValues);
    if (!caller?.keyId || req.header.has(FOLLOW_UP_HEADER)) return next(req);
    await limits.admit({ keyId: caller.keyId, environment: caller.environment });
    try {
      return await next(req);
    } catch (err) {
      throw keyBudgetExceeded(err) ?? err;
    }
  };
}
