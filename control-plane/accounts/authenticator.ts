import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { findApiKey, type AuthenticatedKey } from './api-keys.js';

export interface Authenticator {
  /** Resolves the key in the request header or throws MISSING_API_KEY / INVALID_API_KEY. */
  authenticate(key: string | null | undefined): Promise<AuthenticatedKey>;
}

/**
 * Caches lookups for a short time so a busy key costs one query per window;
 * a revoked key stops working within cacheMs.
 */
export function createAuthenticator(pool: pg.Pool, opts: { cacheMs: number; now?: () => number }): Authenticator {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: AuthenticatedKey | null; expires: number }>();
  return {
    async authenticate(key) {
      if (!key) throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
      const hit = cache.get(key);
      let value: AuthenticatedKey | null;
      if (hit && hit.expires > now()) {
        value = hit.value;
      } else {
        value = await findApiKey(pool, key);
        if (cache.size > 10_000) cache.clear();
        cache.set(key, { value, expires: now() + opts.cacheMs });
      }
      if (!value) throw new TrawlError('INVALID_API_KEY', 'The API key is invalid, malformed or revoked');
      return value;
    },
  };
}
