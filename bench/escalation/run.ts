/**
 * Automatic escalation against "always the browser" on the same mixed set of
 * pages, through the whole stack, in the same run: mostly static pages, some
 * behind a check of the client hints and fetch metadata a browser sends, and
 * some JavaScript-only application shells, each kind served as a site of its
 * own (its own port, so its own host for the tier memory).
 *
 *   npm run bench:escalation [-- --static 70 --guarded 15 --js 15 --concurrency 8 --rounds 3 --way both|auto|tier4]
 *
 * Each round runs both ways, alternating which goes first, each on a new
 * account (so nothing is remembered from the round before), and prints
 * pages/s, credits spent, the tiers used, each kind of page's answer times
 * (p50 and the slowest) and how busy the machine's CPU was (/proc/stat); the
 * last lines give the ranges of the ratios over the rounds. `--way auto` or
 * `--way tier4` runs that way alone in each round (to compare builds on one
 * column, or to profile it), and prints no ratios.
 * TRAWL_BENCH_STACK and TRAWL_BENCH_REDIS_DB name the stack's resources (default bench, 8).
 */
import { readFileSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { bootIsolatedStack, createAccountWithKey } from '../../deploy/local/isolated-stack.js';
import { quantile } from '../quantile.js';

const { values } = parseArgs({
  options: {
    static: { type: 'string', default: '70' },
    guarded: { type: 'string', default: '15' },
    js: { type: 'string', default: '15' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    way: { type: 'string', default: 'both' },
  },
});
const WAYS = { both: ['auto', 'always tier 4'], auto: ['auto'], tier4: ['always tier 4'] } as const;
if (!(values.way! in WAYS)) throw new Error(`--way is both, auto or tier4, not ${values.way}`);
const ways = WAYS[values.way as keyof typeof WAYS];
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);

/** A few kilobytes of article, different on every page. */
function article(kind: string, n: number): string {
  const paragraphs = Array.from(
    { length: 10 },
    (_, i) => `<p>Paragraph ${i + 1} of ${kind} bulletin ${n}: the survey vessel charted ${n * 7 + i} soundings along the eastern channel before the weather turned, and the crew logged every buoy they passed.</p>`,
  ).join('');
  return `<article><h1>${kind} bulletin ${n}</h1>${paragraphs}</article>`;
}

const shell = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>${body}<footer>Harbour Authority</footer></body></html>`;

type Kind = 'static' | 'guarded' | 'js';
const browserLike = (req: IncomingMessage) =>
  typeof req.headers['sec-ch-ua'] === 'string' && req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document' && !!req.headers['accept-language'];

function pageFor(kind: Kind, n: number, req: IncomingMessage): { status: number; html: string } {
  if (kind === 'guarded' && !browserLike(req)) return { status: 403, html: shell('Forbidden', '<h1>Forbidden</h1><p>Request blocked.</p>') };
  if (kind === 'js') {
    return { status: 200, html: shell(`Bulletin ${n}`, `<div id="root"></div><script>document.getElementById('root').innerHTML = ${JSON.stringify(article(kind, n))};</script>`) };
  }
  return { status: 200, html: shell(`Bulletin ${n}`, article(kind, n)) };
}

async function serve(kind: Kind): Promise<{ base: string; close(): void }> {
  const server = http.createServer((req, res) => {
    const n = Number(/^\/bulletin\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    const { status, html } = pageFor(kind, n, req);
    const body = Buffer.from(html);
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

const sites = { static: await serve('static'), guarded: await serve('guarded'), js: await serve('js') };
// The set, interleaved as a real queue of mixed work would be.
const set: Array<{ kind: Kind; n: number }> = [];
const counts: Record<Kind, number> = { static: Number(values.static), guarded: Number(values.guarded), js: Number(values.js) };
const total = counts.static + counts.guarded + counts.js;
for (let i = 0; i < total; i++) {
  // The kind with the largest share of its pages still to place (a kind with none is never picked).
  const kind = (['static', 'guarded', 'js'] as const)
    .filter((k) => counts[k] > 0)
    .map((k) => [k, counts[k] - set.filter((p) => p.kind === k).length, counts[k]] as const)
    .sort((a, b) => b[1] / b[2] - a[1] / a[2])[0]![0];
  set.push({ kind, n: set.filter((p) => p.kind === kind).length });
}

process.stdout.write('booting the stack...\n');
const stack = await bootIsolatedStack({
  name: process.env.TRAWL_BENCH_STACK ?? 'bench',
  redisDb: Number(process.env.TRAWL_BENCH_REDIS_DB ?? 8),
  env: { LOG_LEVEL: 'error', TRAWL_BROWSER_CONCURRENCY: '4', DOMAIN_CONCURRENCY: '256' },
});

interface RunResult {
  pagesPerSecond: number;
  credits: number;
  errors: number;
  tiers: Record<string, number>;
  /** The share of the machine's CPU time that was busy during the run (from /proc/stat), 0 to 1. */
  busy: number;
  /** Each kind's answer times, ms. */
  latency: Record<Kind, number[]>;
}

/** The machine's CPU time so far, idle (idle and iowait) and in all, in ticks, from the first line of /proc/stat. */
function cpuTicks(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
}

async function runSet(way: 'auto' | 'always tier 4'): Promise<RunResult> {
  const { key } = await createAccountWithKey(stack, 1_000_000_000, { enterprise: true });
  let next = 0;
  let credits = 0;
  let errors = 0;
  const tiers: Record<string, number> = {};
  const latency: Record<Kind, number[]> = { static: [], guarded: [], js: [] };
  const ticks = cpuTicks();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < set.length) {
        const page = set[next++]!;
        const sent = performance.now();
        const res = await request(`${stack.baseUrl}/api/v1/scrape`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({
            url: `${sites[page.kind].base}/bulletin/${page.n}`,
            formats: ['markdown'],
            sync_policy: 'wait_until_deadline',
            ...(way === 'always tier 4' ? { cost_controls: { force_tier: '4' } } : {}),
          }),
        });
        const body = (await res.body.json().catch(() => ({}))) as { content?: unknown; billing?: { total_credits?: number; tier_used?: string } };
        latency[page.kind].push(performance.now() - sent);
        const ok = res.statusCode === 200 && typeof body.content === 'string' && body.content.includes(`${page.kind} bulletin ${page.n}`);
        if (!ok) errors++;
        credits += body.billing?.total_credits ?? 0;
        const tier = body.billing?.tier_used ?? '?';
        tiers[tier] = (tiers[tier] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = cpuTicks();
  const busy = 1 - (after.idle - ticks.idle) / Math.max(1, after.total - ticks.total);
  return { pagesPerSecond: set.length / seconds, credits, errors, tiers, busy, latency };
}

const fmt = (n: number, width = 9) => n.toFixed(2).padStart(width);
const line = (name: string, r: RunResult) =>
  `${name.padEnd(16)} ${fmt(r.pagesPerSecond)} ${fmt(r.credits, 10)} ${String(r.errors).padStart(6)}   ${Object.entries(r.tiers)
    .sort()
    .map(([t, c]) => `${t}:${c}`)
    .join(' ')}\n`;
/** Where a way's time went: each kind's answer time, p50 and the slowest. */
const latencyLine = (name: string, r: RunResult) =>
  `${`${name} ms`.padEnd(16)} CPU ${(r.busy * 100).toFixed(0)} % busy; ${(Object.keys(r.latency) as Kind[])
    .filter((k) => r.latency[k].length > 0)
    .map((k) => `${k} p50 ${quantile([...r.latency[k]].sort((a, b) => a - b), 0.5).toFixed(0)} max ${Math.max(...r.latency[k]).toFixed(0)}`)
    .join(', ')}\n`;

try {
  process.stdout.write(`\n${set.length} pages (${counts.static} static, ${counts.guarded} guarded, ${counts.js} JavaScript-only), concurrency ${concurrency}\n`);
  // Warm-up: the browsers, the TLS client, connections, JIT, the pipeline threads.
  for (const way of [...ways].reverse()) await runSet(way);
  const speed: number[] = [];
  const cost: number[] = [];
  const pagesPerSecond: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? ways : [...ways].reverse();
    const results = {} as Partial<Record<'auto' | 'always tier 4', RunResult>>;
    for (const way of order) results[way] = await runSet(way);
    process.stdout.write(`\nround ${round}\n${'way'.padEnd(16)} ${'pages/s'.padStart(9)} ${'credits'.padStart(10)} errors   tiers used\n`);
    for (const way of ways) process.stdout.write(line(way, results[way]!));
    for (const way of ways) process.stdout.write(latencyLine(way, results[way]!));
    const { auto, 'always tier 4': browser } = results;
    if (auto && browser) {
      speed.push(auto.pagesPerSecond / browser.pagesPerSecond);
      cost.push(browser.credits / Math.max(auto.credits, 1e-9));
      process.stdout.write(`${'ratio'.padEnd(16)} ${fmt(speed.at(-1)!)}x ${fmt(cost.at(-1)!, 9)}x cheaper\n`);
    } else pagesPerSecond.push((auto ?? browser)!.pagesPerSecond);
  }
  const range = (xs: number[], unit = 'x') => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}${unit}`;
  if (speed.length > 0) process.stdout.write(`\nover ${rounds} rounds: auto is ${range(speed)} the pages/s of always tier 4, and ${range(cost)} cheaper\n`);
  else process.stdout.write(`\nover ${rounds} rounds: ${ways[0]} ${range(pagesPerSecond, ' pages/s')}\n`);
} finally {
  await stack.stop();
  for (const site of Object.values(sites)) site.close();
}
