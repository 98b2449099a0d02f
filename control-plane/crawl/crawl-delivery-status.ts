import type { JsonObject } from '@bufbuild/protobuf';
import { CRAWL_OUTPUT_EVENT } from '../../common/event-types.js';
import { PRESIGNED_URL_MAX_SECONDS } from '../../common/limits.js';
import type { Db } from '../jobs/job-store.js';
import { partsOf, streamDeliveryCounts, waitingPages, type PartRow } from './crawl-delivery-store.js';
import { outputDestination, outputFormat, type CrawlOutput } from './crawl-output.js';
import type { BucketStorage, CrawlStorage } from './crawl-storage.js';
import type { CrawlRow } from './crawl-store.js';

const pagesIn = (parts: readonly PartRow[], status: PartRow['status']) => parts.filter((p) => p.status === status).reduce((n, p) => n + p.pages, 0);

function lastError(parts: readonly PartRow[]): string | null {
  return [...parts].reverse().find((p) => p.last_error)?.last_error ?? null;
}

/**
 * The status's `storage`: {type: redis}, or for s3 and r2 the written files,
 * each with a download URL signed now (valid for PRESIGNED_URL_MAX_SECONDS,
 * never past the file's retention; null once the file is gone).
 */
async function storageStatus(db: Db, crawl: CrawlRow, storage: CrawlStorage, now: Date): Promise<JsonObject> {
  if (crawl.config.storage === 'redis') return { type: 'redis' };
  const type = crawl.config.storage as BucketStorage;
  const parts = await partsOf(db, crawl.id, 'storage');
  const waiting = await waitingPages(db, crawl.id, 'storage');
  const cap = new Date(now.getTime() + PRESIGNED_URL_MAX_SECONDS * 1000);
  const files = await Promise.all(
    parts
      .filter((p) => p.status === 'written')
      .map(async (p) => {
        const live = p.expires_at !== null && p.expires_at > now;
        const until = live ? new Date(Math.min(cap.getTime(), p.expires_at!.getTime())) : null;
        return {
          part: p.part,
          url: until ? await storage.downloadUrl(type, p.object_key!, until) : null,
          url_expires_at: until?.toISOString() ?? null,
          pages: p.pages,
          bytes: Number(p.bytes),
          written_at: p.written_at!.toISOString(),
          expires_at: p.expires_at?.toISOString() ?? null,
        };
      }),
  );
  return {
    type,
    format: 'jsonl',
    pages_stored: pagesIn(parts, 'written'),
    pages_pending: waiting.n + pagesIn(parts, 'pending'),
    files,
    last_error: parts.some((p) => p.status === 'pending') ? lastError(parts) : null,
  };
}

/** The status's `output_status`: where the output goes and how many pages reached it, are still on their way, or could not be sent. */
async function outputStatus(db: Db, crawl: CrawlRow): Promise<JsonObject | undefined> {
  const output = crawl.config.output as unknown as CrawlOutput | null;
  if (!output) return undefined;
  const parts = await partsOf(db, crawl.id, 'output');
  const waiting = await waitingPages(db, crawl.id, 'output');
  const base = { type: output.type, destination: outputDestination(output) };
  if (output.type === 'webhook_stream') {
    const sent = await streamDeliveryCounts(db, crawl, CRAWL_OUTPUT_EVENT);
    const streamed = pagesIn(parts, 'written');
    return { ...base, pages_delivered: sent.success, pages_pending: waiting.n + streamed - sent.success - sent.failed, pages_failed: sent.failed, last_error: sent.last_error };
  }
  return {
    ...base,
    format: outputFormat(output),
    pages_delivered: pagesIn(parts, 'written'),
    pages_pending: waiting.n + pagesIn(parts, 'pending'),
    pages_failed: pagesIn(parts, 'failed'),
    files_written: parts.filter((p) => p.status === 'written').length,
    last_error: lastError(parts),
  };
}

/** What a crawl's status says of its storage and output. */
export async function deliveryStatus(db: Db, crawl: CrawlRow, storage: CrawlStorage, now = new Date()): Promise<{ storage: JsonObject; outputStatus?: JsonObject }> {
  const output = await outputStatus(db, crawl);
  return { storage: await storageStatus(db, crawl, storage, now), ...(output ? { outputStatus: output } : {}) };
}
