import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { CrawlConfig } from '../../common/crawl-config.js';
import type { NatsNames } from '../../common/nats-names.js';
import { CrawlBatchReportSchema, DiscoveredLinkSchema, type CrawlBatchTask, type CrawlPageOutcome, type DiscoveredLink } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { TaskSchema, type Task } from '../../proto/gen/trawl/v1/work_pb.js';
import { discoverSite } from '../map/discover.js';
import { createMapFetch } from '../map/map-fetch.js';
import type { PoolHandler } from '../runtime/pool-runtime.js';
import { crawlRules, type CrawlRules } from './link-frontier.js';
import { LinkTable } from './link-table.js';
import { PendingResults } from './pending-results.js';
import { crawlPage, type CrawlScope, type PageCrawlDeps } from './page-crawler.js';
import { createSlots, type Slots } from './slots.js';

export interface CrawlBatchDeps {
  pages: PageCrawlDeps;
  js: JetStreamClient;
  names: NatsNames;
  /** How long one robots.txt or sitemap fetch of the seed's discovery may take. */
  sitemapTimeoutMs: number;
  userAgent: string;
  /** Pages fetched at once by this process, over every batch. */
  concurrency: number;
}

/** Sitemap fetches at once for a seed. */
const SEED_CONCURRENCY = 4;

/**
 * The seed of a crawl: its sitemaps (unless `sitemap` is skip), read through
 * the map's discovery with the crawl's scope, patterns and robots.txt (through
 * the premium network for a use_proxy crawl); each URL joins the frontier as
 * a `sitemap` URL at its path depth.
 */
async function seedUrls(batch: CrawlBatchTask, config: CrawlConfig, rules: CrawlRules, deps: CrawlBatchDeps, signal: AbortSignal) {
  if (config.sitemap === 'skip') return { seeds: [] as DiscoveredLink[], sitemapFound: false, crawlDelay: undefined as number | undefined };
  const premiumProxy = config.advanced?.use_proxy === true;
  const outcome = await deps.pages.fetchers.http(premiumProxy, (http) =>
    discoverSite(
      {
        url: config.url,
        maxPages: config.max_pages,
        maxDepth: config.max_depth,
        includePatterns: config.include_patterns ?? [],
        excludePatterns: config.exclude_patterns ?? [],
        sitemap: 'only',
        ...(config.sitemap_path ? { sitemapPath: config.sitemap_path } : {}),
        includeMetadata: false,
        includeSubdomains: config.include_subdomains,
        respectRobots: config.respect_robots,
        userAgent: deps.userAgent,
      },
      createMapFetch({ ...http, timeoutMs: deps.sitemapTimeoutMs }),
      { deadlineMs: Number(batch.deadlineUnixMs), concurrency: SEED_CONCURRENCY, signal },
    ),
  );
  const seeds = outcome.urls
    .filter((u) => u.source === 'sitemap')
    .map((u) => create(DiscoveredLinkSchema, { url: u.url, depth: u.depth, score: rules.score(u.url, ''), source: 'sitemap', budgetKey: rules.budgetKey(u.url) ?? '' }));
  return { seeds, sitemapFound: outcome.sitemap_found, crawlDelay: outcome.robots_txt.crawl_delay ?? undefined };
}

/**
 * Runs a batch of frontier pages: the seed's sitemaps first when it is the
 * seed, then every page within the process's fetch slots, then one report on
 * the crawl reports stream (the batch id as message id, so a repeated report
 * is dropped). Pages not started before the batch's deadline are left out of
 * the report; the control plane queues them again.
 */
export function createCrawlBatchHandler(deps: CrawlBatchDeps): PoolHandler<Task> {
  const slots: Slots = createSlots(deps.concurrency);
  const rulesByCrawl = new Map<string, CrawlRules>();
  const rulesOf = (crawlId: string, config: CrawlConfig) => {
    let rules = rulesByCrawl.get(crawlId);
    if (!rules) {
      rules = crawlRules(config);
      rulesByCrawl.set(crawlId, rules);
      if (rulesByCrawl.size > 1_000) rulesByCrawl.delete(rulesByCrawl.keys().next().value!);
    }
    return rules;
  };

  return {
    decode(data) {
      const task = fromBinary(TaskSchema, data);
      if (task.payload.case !== 'crawl') throw new Error(`The crawl pool does not run ${task.payload.case ?? 'empty'} tasks`);
      return task;
    },

    async handle(task) {
      const batch = task.payload.value as CrawlBatchTask;
      const config = batch.config as unknown as CrawlConfig;
      const rules = rulesOf(batch.crawlId, config);
      const deadlineMs = Number(batch.deadlineUnixMs);
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), Math.max(0, deadlineMs - Date.now()));
      const scope: CrawlScope = {
        crawlId: batch.crawlId,
        accountId: batch.accountId,
        config,
        rules,
        deadlineMs,
        signal: stop.signal,
        tiers: batch.tiers,
        links: new LinkTable(),
        results: new PendingResults(deps.pages.redis, deps.pages.resultTtlSeconds),
      };
      try {
        const seed = batch.seed ? await seedUrls(batch, config, rules, deps, stop.signal) : null;
        const outcomes = await Promise.all(
          batch.pages.map((page) => slots.run(async () => (stop.signal.aborted ? null : crawlPage(page, scope, deps.pages)))),
        );
        const pages = outcomes.filter((o): o is CrawlPageOutcome => o !== null);
        // Every result the report names is stored first; a failed write fails the batch, which is delivered again.
        await scope.results.drain();
        const report = create(CrawlBatchReportSchema, {
          crawlId: batch.crawlId,
          batchId: batch.batchId,
          workerId: deps.pages.workerId,
          pages,
          links: scope.links.links,
          seeds: seed?.seeds ?? [],
          sitemapFound: seed?.sitemapFound ?? false,
          ...(seed?.crawlDelay !== undefined ? { crawlDelay: seed.crawlDelay } : {}),
        });
        await deps.js.publish(deps.names.crawlReportsSubject, toBinary(CrawlBatchReportSchema, report), { msgID: batch.batchId });
      } finally {
        clearTimeout(timer);
      }
    },

    // A batch that keeps failing gives its pages back when its claims expire; nothing to report.
    async exhausted() {},
  };
}
