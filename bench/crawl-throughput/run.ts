/**
 * Crawl throughput end to end: a locally served site of about 2,650 real
 * pages (bench-site.ts) crawled through the public API with Markdown for
 * every page, against Crawlee's CheerioCrawler on the same site in the same
 * run, without and with turndown per page. Each round runs the three in turn;
 * the figures are pages per second from start to the last page, pages found
 * (distinct pages requested) and duplicates (pages fetched more than once).
 *
 *   npm run bench:crawl-throughput [-- --rounds 3] [-- --trawl-only]
 *
 * --trawl-only skips Crawlee (for profiling Trawl's processes). TRAWL_BENCH_STACK
 * and TRAWL_BENCH_REDIS_DB name the stack's resources (default bench_crawl, 7).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CheerioCrawler, Configuration, log } from '@crawlee/cheerio';
import TurndownService from 'turndown';
import { request } from 'undici';
import { bootIsolatedStack, createAccountWithKey } from '../../deploy/local/isolated-stack.js';
import { ROOT } from '../../deploy/local/processes.js';
import { buildBenchSite } from './bench-site.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'trawl-only': { type: 'boolean', default: false } } });
const rounds = Number(values.rounds);
const DATA = path.resolve(ROOT, '../shared/data');

interface Figures {
  seconds: number;
  found: number;
  duplicates: number;
}

/** The site server in its own process, with its request counts. */
async function startSite(root: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/crawl-throughput/site-process.ts'), root], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const origin = (await lines.next()).value as string;
  const ask = async (command: string) => {
    child.stdin!.write(`${command}\n`);
    return JSON.parse((await lines.next()).value as string) as Record<string, number>;
  };
  return {
    origin,
    reset: () => ask('reset'),
    /** Distinct paths requested (robots.txt aside) and the requests beyond the first for each. */
    async counts() {
      const hits = Object.entries(await ask('hits')).filter(([p]) => p !== '/robots.txt');
      return { found: hits.length, duplicates: hits.reduce((n, [, h]) => n + Math.max(0, h - 1), 0) };
    },
    stop: async () => {
      child.stdin!.end();
      await once(child, 'exit');
    },
  };
}

type Site = Awaited<ReturnType<typeof startSite>>;

async function runTrawl(baseUrl: string, key: string, site: Site, maxPages = 10_000): Promise<Figures> {
  await site.reset();
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const started = performance.now();
  const res = await request(`${baseUrl}/api/v1/crawl`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `${site.origin}/`, max_pages: maxPages, max_depth: 20, formats: ['markdown'], sitemap: 'skip' }),
  });
  const startBody = (await res.body.json()) as { crawl_id?: string };
  if (res.statusCode !== 202 || !startBody.crawl_id) throw new Error(`POST /api/v1/crawl answered ${res.statusCode}: ${JSON.stringify(startBody)}`);
  for (;;) {
    const status = await request(`${baseUrl}/api/v1/crawl/${startBody.crawl_id}`, { headers });
    const body = (await status.body.json()) as { status: string; completed: number; failed: number };
    if (!['discovering', 'scraping'].includes(body.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, ...(await site.counts()) };
}

async function runCrawlee(site: Site, markdown: boolean): Promise<Figures> {
  await site.reset();
  const turndown = new TurndownService();
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const crawler = new CheerioCrawler(
    {
      maxRequestsPerCrawl: 10_000,
      async requestHandler({ body, enqueueLinks }) {
        if (markdown) turndown.turndown(body.toString());
        await enqueueLinks({ strategy: 'same-hostname' });
      },
      failedRequestHandler() {},
    },
    config,
  );
  const started = performance.now();
  await crawler.run([`${site.origin}/`]);
  const seconds = (performance.now() - started) / 1000;
  return { seconds, ...(await site.counts()) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (f: Figures) => f.found / f.seconds;

log.setLevel(log.LEVELS.ERROR);
const stack = await bootIsolatedStack({
  name: process.env.TRAWL_BENCH_STACK ?? 'bench_crawl',
  redisDb: Number(process.env.TRAWL_BENCH_REDIS_DB ?? 7),
  env: { LOG_LEVEL: 'error' },
});
const built = buildBenchSite(DATA);
const site = await startSite(built.root);
try {
  const { key } = await createAccountWithKey(stack, 1_000_000_000, { enterprise: true });
  const results: Record<string, Figures[]> = values['trawl-only'] ? { trawl: [] } : { trawl: [], crawlee: [], 'crawlee+turndown': [] };
  // A first crawl warms every process (threads, connections); it is not counted.
  await runTrawl(stack.baseUrl, key, site, 300);
  for (let round = 1; round <= rounds; round++) {
    results['trawl']!.push(await runTrawl(stack.baseUrl, key, site));
    if (values['trawl-only']) {
      const last = results['trawl']!.at(-1)!;
      console.log(`round ${round}: trawl ${rate(last).toFixed(1)} pages/s (${last.found} found, ${last.duplicates} dup, ${last.seconds.toFixed(1)} s)`);
      continue;
    }
    results['crawlee']!.push(await runCrawlee(site, false));
    results['crawlee+turndown']!.push(await runCrawlee(site, true));
    const line = Object.entries(results)
      .map(([name, fs]) => `${name} ${rate(fs[fs.length - 1]!).toFixed(1)} pages/s (${fs[fs.length - 1]!.found} found, ${fs[fs.length - 1]!.duplicates} dup)`)
      .join(' | ');
    console.log(`round ${round}: ${line}`);
  }
  console.log(`\nsite: ${built.htmlFiles} reachable HTML pages (${site.origin})`);
  console.log('median of rounds:');
  for (const [name, fs] of Object.entries(results)) {
    console.log(
      `  ${name.padEnd(17)} ${median(fs.map(rate)).toFixed(1).padStart(7)} pages/s  found ${median(fs.map((f) => f.found))}  duplicates ${median(fs.map((f) => f.duplicates))}  ${median(fs.map((f) => f.seconds)).toFixed(1)} s`,
    );
  }
  const trawl = median(results['trawl']!.map(rate));
  if (!values['trawl-only']) {
    console.log(`ratio trawl (Markdown) / crawlee (no Markdown): ${(trawl / median(results['crawlee']!.map(rate))).toFixed(2)}`);
    console.log(`ratio trawl (Markdown) / crawlee + turndown:     ${(trawl / median(results['crawlee+turndown']!.map(rate))).toFixed(2)}`);
  }
} finally {
  await stack.stop();
  await site.stop();
  rmSync(built.root, { recursive: true, force: true });
}
