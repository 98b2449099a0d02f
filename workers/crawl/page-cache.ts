import type { Redis } from 'ioredis';
import type { FetchedPage } from '../fetching/fetch-result.js';

/**
 * A crawl page's fetched answer kept in Redis for `cache_ttl` seconds, so a
 * later crawl with `cache` reads it instead of fetching (and is not charged
 * for it). Stored as a 4-byte length, the answer's metadata as JSON, then
 * the body bytes.
 */
type CachedMeta = Pick<FetchedPage, 'statusCode' | 'finalUrl' | 'contentType' | 'charset' | 'headers' | 'screenshotUrl'>;

export async function writeCachedPage(redis: Redis, key: string, page: FetchedPage, ttlSeconds: number): Promise<void> {
  const meta: CachedMeta = { statusCode: page.statusCode, finalUrl: page.finalUrl, contentType: page.contentType, charset: page.charset, headers: page.headers, screenshotUrl: page.screenshotUrl };
  const head = Buffer.from(JSON.stringify(meta));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  await redis.set(key, Buffer.concat([length, head, page.body]), 'EX', ttlSeconds);
}

export async function readCachedPage(redis: Redis, key: string): Promise<FetchedPage | null> {
  const stored = await redis.getBuffer(key);
  if (!stored || stored.length < 4) return null;
  const headLength = stored.readUInt32BE(0);
  const meta = JSON.parse(stored.subarray(4, 4 + headLength).toString('utf8')) as CachedMeta;
  // A copy of its own: the pipeline moves the body's whole buffer to its thread.
  const body = Buffer.from(stored.subarray(4 + headLength));
  return { kind: 'ok', ...meta, redirects: [], body, bytes: body.length, timings: { ttfbMs: 0, totalMs: 0 } };
}
