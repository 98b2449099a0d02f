import type { Redis } from 'ioredis';
import type pg from 'pg';
import { ACTIVE_CRAWL_STATUSES } from '../../common/crawl-config.js';
import { CRAWL_PART_PAGES, CRAWL_PART_WAIT_MS, CRAWL_STORAGE_RETRY_MAX_MS, WEBHOOK_MAX_ATTEMPTS } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import { isUrlNotAllowedError } from '../../common/ssrf-guard.js';
import type { CrawlPage } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { withTransaction } from '../billing/ledger.js';
import { polledPasses } from '../events/serial-passes.js';
import type { Db } from '../jobs/job-store.js';
import { closeDeliveryIfDone, cutPart, dueParts, openCrawls, partAttemptFailed, partPages, partWritten, waitingPages, type DeliveryTarget, type OpenCrawl } from './crawl-delivery-store.js';
import { outputFileWriter, outputFormat, streamPages, type CrawlOutput, type OutputSettings } from './crawl-output.js';
import { crawlPageOf } from './crawl-page.js';
import { renderResultFile, resultObjectKey } from './crawl-result-files.js';
import { retentionEnd, type BucketStorage, type CrawlStorage } from './crawl-storage.js';

export interface CrawlDeliveryDeps {
  pool: pg.Pool;
  redis: Redis;
  log: Logger;
  storage: CrawlStorage;
  output: OutputSettings;
  /** The waits before an output part's second and third attempts: the webhook delivery rules (SPEC 6.4). */
  retryDelaysMs: readonly number[];
}

/** Object names in Trawl's bucket start with this. */
export const STORAGE_PREFIX = 'crawls';
/** Crawls looked at per pass, and worked at once (each holds a Postgres connection while its writes run). */
const CRAWLS_PER_PASS = 50;
const CRAWLS_AT_ONCE = 4;
/** Part writes per crawl per pass, so one crawl's backlog never holds its transaction for long; the next pass goes on. */
const WRITES_PER_CRAWL = 8;
const POLL_MS = 1_000;
const ERROR_MAX_CHARS = 300;

/** The targets a crawl writes to. */
export function deliveryTargets(config: OpenCrawl['config']): DeliveryTarget[] {
  return [...(config.storage !== 'redis' ? (['storage'] as const) : []), ...(config.output ? (['output'] as const) : [])];
}

/** A failure as the status shows it: the service's own words, never a secret or an address a name resolved to. */
function describeFailure(err: unknown): string {
  if (isUrlNotAllowedError(err)) return err.message;
  const e = err as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  const text = [e.name && e.name !== 'Error' ? e.name : null, e.code ?? null, status ? `HTTP ${status}` : null, e.message ?? String(err)].filter(Boolean).join(': ');
  return text.slice(0, ERROR_MAX_CHARS);
}

async function loadPages(db: Db, redis: Redis, crawlId: string, target: DeliveryTarget, part: number): Promise<CrawlPage[]> {
  const rows = await partPages(db, crawlId, target, part);
  const keys = rows.map((r) => r.result_key);
  const stored = keys.some((k) => k) ? await redis.mgetBuffer(...keys.map((k) => k ?? '')) : [];
  return rows.map((r, i) => crawlPageOf(crawlId, r, stored[i]));
}

/** Cuts the parts that are due: full ones, and the rest once the crawl has ended or its oldest page has waited long enough. */
async function cutDueParts(db: Db, crawl: OpenCrawl, target: DeliveryTarget): Promise<number[]> {
  const ended = !(ACTIVE_CRAWL_STATUSES as readonly string[]).includes(crawl.status);
  const cut: number[] = [];
  for (;;) {
    const waiting = await waitingPages(db, crawl.id, target);
    const stale = waiting.oldest !== null && Date.now() - waiting.oldest.getTime() >= CRAWL_PART_WAIT_MS;
    if (waiting.n === 0 || (waiting.n < CRAWL_PART_PAGES && !ended && !stale)) return cut;
    const part = await cutPart(db, crawl.id, target, CRAWL_PART_PAGES);
    if (part === null) return cut;
    cut.push(part);
  }
}

/** Writes one part: to Trawl's bucket (tried again until it is written), or to the caller's bucket (tried by the delivery rules). */
async function writePart(deps: CrawlDeliveryDeps, db: Db, crawl: OpenCrawl, target: DeliveryTarget, part: number, attempts: number): Promise<void> {
  const pages = await loadPages(db, deps.redis, crawl.id, target, part);
  try {
    if (target === 'storage') {
      const key = resultObjectKey(STORAGE_PREFIX, crawl.id, part, 'jsonl');
      const body = renderResultFile(pages, 'jsonl');
      const expiresAt = retentionEnd(new Date());
      await deps.storage.write(crawl.config.storage as BucketStorage, key, body, expiresAt);
      await partWritten(db, crawl.id, target, part, { objectKey: key, bytes: body.length, expiresAt });
      return;
    }
    const output = crawl.config.output as unknown as CrawlOutput;
    const format = outputFormat(output);
    const key = resultObjectKey(output.type === 'webhook_stream' ? '' : (output.prefix ?? ''), crawl.id, part, format);
    const body = renderResultFile(pages, format);
    await outputFileWriter(output, crawl.output_secret_sealed!, deps.output)(key, body);
    await partWritten(db, crawl.id, target, part, { objectKey: key, bytes: body.length, expiresAt: null });
  } catch (err) {
    const error = describeFailure(err);
    const retryIn = target === 'storage' ? Math.min(CRAWL_STORAGE_RETRY_MAX_MS, 1000 * 2 ** attempts) : attempts + 1 < WEBHOOK_MAX_ATTEMPTS ? (deps.retryDelaysMs[attempts] ?? null) : null;
    await partAttemptFailed(db, crawl.id, target, part, error, retryIn);
    deps.log.warn({ crawlId: crawl.id, target, part, error }, retryIn === null ? 'a crawl output part could not be written; given up' : 'a crawl result part could not be written; tried again later');
  }
}

/**
 * One crawl's delivery, under a per-crawl advisory lock (so control planes
 * never write the same crawl at once): parts are cut from finished pages and
 * written; webhook_stream pages become delivery events in the transaction
 * that assigns them.
 */
async function deliverCrawl(deps: CrawlDeliveryDeps, crawl: OpenCrawl): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [`crawl-delivery:${crawl.id}`]);
    if (!lock.rows[0]!.ok) return;
    const targets = deliveryTargets(crawl.config);
    for (const target of targets) {
      const cut = await cutDueParts(client, crawl, target);
      const output = crawl.config.output as unknown as CrawlOutput | null;
      if (target === 'output' && output?.type === 'webhook_stream') {
        for (const part of cut) {
          const pages = await loadPages(client, deps.redis, crawl.id, target, part);
          await streamPages(client, crawl, output, crawl.output_secret_sealed!, deps.output.masterKeyHex, pages);
          await partWritten(client, crawl.id, target, part, { objectKey: null, bytes: 0, expiresAt: null });
        }
        continue;
      }
      const due = (await dueParts(client, crawl.id, target)).slice(0, WRITES_PER_CRAWL);
      for (const d of due) await writePart(deps, client, crawl, target, d.part, d.attempts);
    }
    await closeDeliveryIfDone(client, crawl.id, targets);
  });
}

export async function deliverOnce(deps: CrawlDeliveryDeps): Promise<void> {
  const crawls = await openCrawls(deps.pool, CRAWLS_PER_PASS);
  for (let i = 0; i < crawls.length; i += CRAWLS_AT_ONCE) {
    await Promise.all(
      crawls.slice(i, i + CRAWLS_AT_ONCE).map((crawl) =>
        deliverCrawl(deps, crawl).catch((err: unknown) => deps.log.error({ err, crawlId: crawl.id }, 'delivering crawl results failed; the next pass retries')),
      ),
    );
  }
}

/** Runs the delivery every second, one pass at a time. */
export function startCrawlDelivery(deps: CrawlDeliveryDeps): { wake(): void; stop(): Promise<void> } {
  return polledPasses(
    async () => {
      await deliverOnce(deps);
      return false;
    },
    (err) => deps.log.error({ err }, 'delivering crawl results failed; the next pass retries'),
    POLL_MS,
  );
}
