import { randomUUID } from 'node:crypto';
import { create, toBinary, type JsonObject } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type pg from 'pg';
import { CRAWL_LIMITS } from '../../common/crawl-config.js';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { CRAWL_POOL } from '../../common/tiers.js';
import { CrawlBatchTaskSchema, CrawlPageTaskSchema } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { AttemptRefSchema, TaskSchema } from '../../proto/gen/trawl/v1/work_pb.js';
import { withTransaction } from '../billing/ledger.js';
import { endCrawl, naturalEnding } from './crawl-ending.js';
import { crawlProgress } from './crawl-progress.js';
import { findCrawlById, frontierState, lockActiveCrawls, markPages, queuedCandidates, recordClaim, requeueExpiredClaims, type CrawlRow } from './crawl-store.js';

export interface CrawlSchedulerDeps {
  pool: pg.Pool;
  js: JetStreamClient;
  names: NatsNames;
  log: Logger;
}

interface ClaimedBatch {
  crawl: CrawlRow;
  batchId: string;
  pages: Array<{ url: string; depth: number }>;
  seed: boolean;
}

/** Active crawls looked at per pass. */
const CRAWLS_PER_PASS = 50;
/** Time a batch's worker keeps back from the lease to report before the claim expires. */
const REPORT_MARGIN_MS = 15_000;

/**
 * Takes pages for one crawl under its lock: the seed batch (the start page,
 * with robots.txt and sitemaps) alone first, then batches of the best-scored
 * queued pages while fewer than `batchesInFlight` are out and the page
 * allowance lasts. Pages over their `budget` pattern's count are dropped
 * (skipped) as they come up, so lower-scored pages are the ones left out.
 */
async function claimFor(client: pg.PoolClient, crawl: CrawlRow): Promise<{ batches: ClaimedBatch[]; idle: boolean }> {
  await requeueExpiredClaims(client, crawl.id);
  const state = await frontierState(client, crawl.id);
  const { claimed: claimedNow } = (await findCrawlById(client, crawl.id))!;
  let capacity = crawl.page_limit - claimedNow;
  const batches: ClaimedBatch[] = [];
  if (crawl.status === 'discovering') {
    // The seed runs alone: robots.txt and the sitemaps must be known before other pages are fetched.
    if (state.batchesOut > 0) return { batches, idle: false };
    if (claimedNow === 0 && state.queued) {
      const [start] = await queuedCandidates(client, crawl.id, 1);
      if (start) {
        const batchId = randomUUID();
        await markPages(client, crawl.id, [start.url], 'claimed', { id: batchId, leaseMs: CRAWL_LIMITS.leaseMs });
        const counts = { ...crawl.budget_counts };
        if (start.budget_key !== null) counts[start.budget_key] = (counts[start.budget_key] ?? 0) + 1;
        await recordClaim(client, crawl.id, 1, counts);
        return { batches: [{ crawl, batchId, pages: [start], seed: true }], idle: false };
      }
    }
  }
  const budget = crawl.config.budget;
  const counts = { ...crawl.budget_counts };
  let free = CRAWL_LIMITS.batchesInFlight - state.batchesOut;
  let taken = 0;
  while (free > 0 && capacity > 0) {
    const want = Math.min(CRAWL_LIMITS.batchSize, capacity);
    const candidates = await queuedCandidates(client, crawl.id, want * 4);
    if (candidates.length === 0) break;
    const take: typeof candidates = [];
    const over: string[] = [];
    for (const c of candidates) {
      if (take.length >= want) break;
      if (budget && c.budget_key !== null) {
        const used = counts[c.budget_key] ?? 0;
        if (used >= (budget[c.budget_key] ?? Infinity)) {
          over.push(c.url);
          continue;
        }
        counts[c.budget_key] = used + 1;
      }
      take.push(c);
    }
    await markPages(client, crawl.id, over, 'skipped');
    if (take.length > 0) {
      const batchId = randomUUID();
      await markPages(client, crawl.id, take.map((c) => c.url), 'claimed', { id: batchId, leaseMs: CRAWL_LIMITS.leaseMs });
      batches.push({ crawl, batchId, pages: take, seed: false });
      capacity -= take.length;
      taken += take.length;
      free -= 1;
    }
  }
  if (taken > 0 || JSON.stringify(counts) !== JSON.stringify(crawl.budget_counts)) await recordClaim(client, crawl.id, taken, counts);
  const idle = batches.length === 0 && state.batchesOut === 0 && state.claimedPages === 0;
  return { batches, idle };
}

function taskBytes(b: ClaimedBatch): Uint8Array {
  const deadline = BigInt(Date.now() + CRAWL_LIMITS.leaseMs - REPORT_MARGIN_MS);
  return toBinary(
    TaskSchema,
    create(TaskSchema, {
      attempt: create(AttemptRefSchema, {
        jobId: b.crawl.id,
        attemptId: b.batchId,
        attemptNumber: 1,
        tier: b.crawl.tier,
        pool: CRAWL_POOL,
        deadlineUnixMs: deadline,
        accountId: b.crawl.account_id,
      }),
      payload: {
        case: 'crawl',
        value: create(CrawlBatchTaskSchema, {
          crawlId: b.crawl.id,
          batchId: b.batchId,
          pages: b.pages.map((p) => create(CrawlPageTaskSchema, { url: p.url, depth: p.depth })),
          config: b.crawl.config as unknown as JsonObject,
          seed: b.seed,
          deadlineUnixMs: deadline,
          accountId: b.crawl.account_id,
          tiers: b.crawl.tier_plan,
        }),
      },
    }),
  );
}

export interface CrawlScheduler {
  /** Looks at one crawl soon (after a report or a start), or at every active crawl. */
  kick(crawlId?: string): void;
  stop(): Promise<void>;
}

/**
 * Hands the frontier out in batches. Every control-plane replica runs one;
 * they share the work through row locks (a crawl another replica is looking
 * at is skipped). Claims are committed before their tasks are published, so
 * a replica that dies in between leaves claims that expire and are queued
 * again. A crawl with nothing claimed, nothing out and nothing it may still
 * take is ended here. Each pass covers the crawls it was kicked for, and
 * every `intervalMs` all active crawls (expired claims, ends).
 */
export function startCrawlScheduler(deps: CrawlSchedulerDeps, opts: { intervalMs: number }): CrawlScheduler {
  const pending = new Set<string>();
  let all = true;
  let running: Promise<void> | null = null;
  let stopped = false;

  const passFor = async (onlyId?: string): Promise<void> => {
    const batches = await withTransaction(deps.pool, async (client) => {
      const crawls = await lockActiveCrawls(client, CRAWLS_PER_PASS, onlyId);
      const out: ClaimedBatch[] = [];
      for (const crawl of crawls) {
        const { batches: claimed, idle } = await claimFor(client, crawl);
        out.push(...claimed);
        if (idle) {
          const fresh = (await findCrawlById(client, crawl.id))!;
          await endCrawl(client, fresh, naturalEnding(await crawlProgress(client, fresh)));
        }
      }
      return out;
    });
    await Promise.all(batches.map((b) => deps.js.publish(deps.names.workSubject(CRAWL_POOL), taskBytes(b), { msgID: b.batchId })));
  };

  const run = async (): Promise<void> => {
    while (!stopped && (all || pending.size > 0)) {
      if (all) {
        all = false;
        pending.clear();
        await passFor();
        continue;
      }
      const ids = [...pending];
      pending.clear();
      for (const id of ids) await passFor(id);
    }
  };

  const start = () => {
    if (running || stopped) return;
    running = run()
      .catch((err) => deps.log.error({ err }, 'handing out crawl work failed; the next pass retries'))
      .finally(() => {
        running = null;
        if (!stopped && (all || pending.size > 0)) start();
      });
  };

  const timer = setInterval(() => {
    all = true;
    start();
  }, opts.intervalMs);
  start();

  return {
    kick(crawlId) {
      if (crawlId) pending.add(crawlId);
      else all = true;
      start();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
