import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { INVALID_API_KEY_MESSAGE } from '../../common/api-key-format.js';
import { digestApiKey, findApiKey, type AuthenticatedKey } from './api-keys.js';

export interface Authenticator {
  /** Resolves the key in the request header or throws MISSING_API_KEY / INVALID_API_KEY. */
  authenticate(key: string | null | undefined): Promise<AuthenticatedKey>;
  /** Drops what is cached about a key (revoked, regenerated): its next use is looked up again. */
  forget(keyId: string): void;
}

/** last_used_at is written at most this often per key and process. */
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_CACHED = 10_000;

/**
 * Caches lookups for a short time so a busy key costs one query per window.
 * Entries are held by the key's digest (never the key itself) and indexed by
 * key id, so a revocation announced on every control plane (keys/key-changes.ts)
 * drops them at once; without an announcement a revoked key would stop
 * working within cacheMs. Marks each key's last use, to the minute.
 */
export function createAuthenticator(pool: pg.Pool, opts: { cacheMs: number; now?: () => number }): Authenticator {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: AuthenticatedKey | null; expires: number }>();
  const digestsByKeyId = new Map<string, string>();
  const lastTouched = new Map<string, number>();
  // A lookup that began before a forget() may read the key as it was; it is not cached.
  let epoch = 0;

  function touch(keyId: string): void {
    const at = now();
    if ((lastTouched.get(keyId) ?? -Infinity) > at - LAST_USED_RESOLUTION_MS) return;
    if (lastTouched.size > MAX_CACHED) lastTouched.clear();
    lastTouched.set(keyId, at);
    pool.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]).catch(() => lastTouched.delete(keyId));
  }

  return {
    async authenticate(key) {
      if (!key) throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
      const digest = digestApiKey(key).toString('base64');
      const hit = cache.get(digest);
      let value: AuthenticatedKey | null;
      if (hit && hit.expires > now()) {
        value = hit.value;
      } else {
        const started = epoch;
        value = await findApiKey(pool, key);
        if (started === epoch) {
          if (cache.size > MAX_CACHED) {
            cache.clear();
            digestsByKeyId.clear();
          }
          cache.set(digest, { value, expires: now() + opts.cacheMs });
          if (value) digestsByKeyId.set(value.keyId, digest);
        }
      }
      if (!value) throw new TrawlError('INVALID_API_KEY', INVALID_API_KEY_MESSAGE);
      touch(value.keyId);
      return value;
    },
    forget(keyId) {
      epoch++;
      const digest = digestsByKeyId.get(keyId);
      if (digest !== undefined) cache.delete(digest);
      digestsByKeyId.delete(keyId);
    },
  };
}
