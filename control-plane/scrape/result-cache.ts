import { createHash } from 'node:crypto';
import { create, fromBinary, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import type { Redis } from 'ioredis';
import { CACHE_TTL_DEFAULT_S } from '../../common/limits.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { decodeCachePointer } from '../../common/result-cache.js';
import { ScrapeRequestSchema, ScrapeResultSchema, type ScrapeRequest } from '../../proto/gen/trawl/v1/scrape_pb.js';

/**
 * Response caching (`cache`, `cache_ttl`, `force_refresh`). A successful
 * result of a request with `cache: true` is announced in Redis under the
 * request's identity (the worker writes the pointer with the result, see
 * common/result-cache.ts); a later request with the same identity
 * is answered from it, free, with `cached: true`.
 *
 * The identity is a digest of every field that shapes the result: the URL,
 * mode, formats, extraction and `advanced` options. Fields that only decide
 * how the request runs (sync, timeout, cost controls, caching itself,
 * webhooks) are left out. A request carrying anything private to its account
 * (cookies, a stored session, its own proxy, request headers) is also keyed by the account, so
 * such a result is never served to anyone else.
 */

/** Fields that change how a request runs but not what its result holds. */
const RUN_ONLY_FIELDS = ['sync', 'syncPolicy', 'timeout', 'cache', 'cacheTtl', 'forceRefresh', 'webhookUrl', 'costControls', 'cacheIdentity'] as const;
/** `advanced` options that tie a result to the account that sent them. */
const PRIVATE_ADVANCED = ['cookies', 'session_id', 'use_own_proxy'] as const;
/** Only requests that read the target can be answered again; a POST may change it. */
const CACHEABLE_METHODS: ReadonlySet<string> = new Set(['', 'GET', 'HEAD']);

/** JSON with object keys sorted, so equal requests give equal text. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k] as JsonValue)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * `advanced` options sent with the value they have when omitted, and `markdown` (already folded into the
 * formats), which change nothing: a request that spells a default out is the same request.
 */
const ADVANCED_DEFAULTS: Readonly<Record<string, JsonValue>> = {
  render_js: 'auto',
  screenshot: false,
  generate_pdf: false,
  ocr: false,
  use_proxy: false,
  use_own_proxy: false,
  remove_cookie_banners: true,
  only_main_content: true,
};
const FOLDED_ADVANCED = ['markdown'] as const;

/** What makes a private result: the stored session's cookies as the scrape reads them, and the caller's proxy (kept out of the request). */
export interface CacheSecrets {
  sessionCookies?: Record<string, string> | undefined;
  ownProxyUrl?: string | undefined;
}

/**
 * The request's cache identity, or null when its result may not be reused.
 * The secrets only enter the digest, so a session refreshed with other
 * cookies, or another proxy, is another request; neither is stored.
 */
export function cacheIdentity(request: ScrapeRequest, accountId: string, secrets: CacheSecrets = {}): string | null {
  if (!CACHEABLE_METHODS.has(request.method.toUpperCase())) return null;
  const fields = toJson(ScrapeRequestSchema, request) as Record<string, JsonValue>;
  for (const field of RUN_ONLY_FIELDS) delete fields[field];
  if (Array.isArray(fields['formats'])) fields['formats'] = [...(fields['formats'] as string[])].sort();
  const advanced = { ...((fields['advanced'] ?? {}) as Record<string, JsonValue>) };
  for (const [name, value] of Object.entries(ADVANCED_DEFAULTS)) if (advanced[name] === value) delete advanced[name];
  for (const name of FOLDED_ADVANCED) delete advanced[name];
  if (Object.keys(advanced).length > 0) fields['advanced'] = advanced;
  else delete fields['advanced'];
  // Request headers may carry credentials (an Authorization header), so they make a result private too.
  const privateTo = PRIVATE_ADVANCED.some((name) => advanced[name] !== undefined) || Object.keys(request.headers).length > 0 ? accountId : null;
  const secret = { cookies: secrets.sessionCookies ?? null, proxy: secrets.ownProxyUrl ?? null };
  return createHash('sha256').update(canonical({ request: fields, account: privateTo, secret: secret as JsonValue })).digest('base64url');
}

/** Seconds a cached result is reused. */
export function cacheTtlSeconds(request: ScrapeRequest): number {
  return request.cacheTtl ?? CACHE_TTL_DEFAULT_S;
}

/**
 * The cached result for an identity, marked `cached: true`, with the tier
 * that made it; null on a miss, including a pointer whose result has expired.
 */
export async function readCachedResult(redis: Redis, keys: RedisKeys, identity: string): Promise<{ result: Uint8Array; tier: string } | null> {
  const raw = await redis.get(keys.resultCache(identity));
  if (!raw) return null;
  const pointer = decodeCachePointer(raw);
  if (!pointer) return null;
  const stored = await redis.getBuffer(pointer.result_key);
  if (!stored) return null;
  const result = fromBinary(ScrapeResultSchema, stored);
  return { result: toBinary(ScrapeResultSchema, create(ScrapeResultSchema, { ...result, cached: true })), tier: pointer.tier };
}
