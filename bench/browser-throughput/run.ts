/**
 * The browser tier through the whole stack (gateway, control plane, NATS,
 * the browser pool, pipeline, Redis, Postgres billing) against a bare
 * Playwright loop (one Chromium, a fresh context per page, the same
 * concurrency) on the same locally served multi-page site, in the same run:
 * rounds of each, the order reversed every round, then the range of the
 * ratios. A third client runs the same loop on a Chromium launched with the
 * features the browser pool turns off, so the cost of the stack around
 * Chromium shows apart from the pool's Chromium settings.
 *
 *   npm run bench:browser-throughput [-- --pages 60 --concurrency 4 --rounds 3]
 *
 * TRAWL_BENCH_STACK and TRAWL_BENCH_REDIS_DB name the stack's resources (default bench, 8).
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { request } from 'undici';
import { bootIsolatedStack, createAccountWithKey } from '../../deploy/local/isolated-stack.js';
import { CHROMIUM_ARGS, poolFeatureOptions } from '../../workers/fetching/chromium.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
  },
});
const rounds = Number(values.rounds);
const pages = Number(values.pages);
const concurrency = Number(values.concurrency);
const chromiumPath = process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A site of JavaScript-rendered pages: each is a shell whose article a script writes. */
function sitePage(n: number): string {
  const paragraphs = Array.from({ length: 12 }, (_, i) => `<p>Section ${i + 1} of harbour report ${n}: the tide rose ${i + 2} metres and the ferries ran late.</p>`).join('');
  const links = Array.from({ length: 10 }, (_, i) => `<a href="/page/${(n + i + 1) % pages}">Report ${(n + i + 1) % pages}</a>`).join(' ');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Report ${n}</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = ${JSON.stringify(`<article><h1>Harbour report ${n}</h1>${paragraphs}</article><nav>${links}</nav>`)};</script></body></html>`;
}

const server = http.createServer((req, res) => {
  const n = Number(/^\/page\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
  const body = Buffer.from(sitePage(n));
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

async function run(count: number, once: (n: number) => Promise<boolean>): Promise<{ pagesPerSecond: number; errors: number }> {
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        if (!(await once(n).catch(() => false))) errors++;
      }
    }),
  );
  return { pagesPerSecond: count / ((performance.now() - started) / 1000), errors };
}

process.stdout.write('booting the stack...\n');
const stack = await bootIsolatedStack({
  name: process.env.TRAWL_BENCH_STACK ?? 'bench',
  redisDb: Number(process.env.TRAWL_BENCH_REDIS_DB ?? 8),
  env: { LOG_LEVEL: 'error', TRAWL_BROWSER_CONCURRENCY: String(concurrency), DOMAIN_CONCURRENCY: '256' },
});
const { key } = await createAccountWithKey(stack, 1_000_000_000, { enterprise: true });

const viaStack = async (n: number) => {
  const res = await request(`${stack.baseUrl}/api/v1/scrape`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ url: `${base}/page/${n % pages}`, formats: ['markdown'], advanced: { render_js: true }, sync_policy: 'wait_until_deadline' }),
  });
  const text = await res.body.text();
  return res.statusCode === 200 && text.includes(`Harbour report ${n % pages}`);
};

const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
// The same loop on a Chromium with the features the pool turns off also off: what the stack costs around Chromium.
const features = poolFeatureOptions();
const tunedBrowser = await chromium.launch({ executablePath: chromiumPath, ignoreDefaultArgs: features.ignoreDefaultArgs, args: [...CHROMIUM_ARGS, ...features.args] });
const bareLoop = (b: typeof browser) => async (n: number) => {
  const context = await b.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${base}/page/${n % pages}`, { waitUntil: 'load' });
    return (await page.content()).includes(`Harbour report ${n % pages}`);
  } finally {
    await context.close();
  }
};
const bare = bareLoop(browser);
const tuned = bareLoop(tunedBrowser);

try {
  // Warm-up: the browsers, connections, JIT, the pipeline threads.
  await run(concurrency * 2, viaStack);
  await run(concurrency * 2, bare);
  await run(concurrency * 2, tuned);
  const fmt = (n: number) => n.toFixed(2).padStart(8);
  process.stdout.write(`\n${pages} JavaScript-rendered pages, concurrency ${concurrency}, ${rounds} rounds\n`);
  const ways = [
    ['trawl tier 4 (whole stack)', viaStack],
    ['bare Playwright loop', bare],
    ["bare loop, the pool's features off", tuned],
  ] as const;
  const ratios: number[] = [];
  const tunedRatios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const results = new Map<string, { pagesPerSecond: number; errors: number }>();
    for (const [name, once] of round % 2 === 1 ? ways : [...ways].reverse()) results.set(name, await run(pages, once));
    const pps = (i: number) => results.get(ways[i]![0])!.pagesPerSecond;
    ratios.push(pps(0) / pps(1));
    tunedRatios.push(pps(0) / pps(2));
    process.stdout.write(`\nround ${round}\n${'client'.padEnd(38)} ${'pages/s'.padStart(8)} errors\n`);
    for (const [name] of ways) process.stdout.write(`${name.padEnd(38)} ${fmt(results.get(name)!.pagesPerSecond)} ${results.get(name)!.errors}\n`);
    process.stdout.write(`${'ratio (trawl / bare)'.padEnd(38)} ${fmt(ratios.at(-1)!)}x\n`);
    process.stdout.write(`${"ratio (trawl / bare, pool's features)".padEnd(38)} ${fmt(tunedRatios.at(-1)!)}x\n`);
  }
  const range = (rs: number[]) => {
    const sorted = [...rs].sort((x, y) => x - y);
    return `${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}x (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}x)`;
  };
  process.stdout.write(`\nover ${rounds} rounds: trawl is ${range(ratios)} the bare loop's pages/s (goal 0.95x)\n`);
  process.stdout.write(`and ${range(tunedRatios)} the pages/s of the bare loop on a Chromium with the pool's features off\n`);
} finally {
  await browser.close();
  await tunedBrowser.close();
  await stack.stop();
  server.close();
}
