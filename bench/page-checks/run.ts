/**
 * The checks made on every fetched HTML page before the content pipeline
 * (JavaScript shell, then sign-in, captcha and subscription walls), over the
 * pages of the shared extraction set, against parsing each page's start into
 * a tree with htmlparser2 and cheerio: what the checks would cost if every
 * page were parsed for them. Each page is decoded into pieces first, as a
 * fetched page is, outside the timing. Prints the time a page (mean, p50,
 * p90, p99, max), how many pages needed the tree, the wall check on those
 * pages against their parse alone, and what was found.
 *
 *   npm run bench:page-checks [-- --rounds 3 --limit 200]
 *   npm run bench:page-checks -- --page path/to/page.html[.gz] [--repeat 200]
 *
 * With --page, the set is that one page, checked --repeat times a round
 * (e.g. the page of bench:scrape-latency, which the wall check parses).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { isJavaScriptShell } from '../../workers/fetching/js-shell-detector.js';
import { parsePage } from '../../workers/fetching/page-tree.js';
import { decodePageHead } from '../../workers/fetching/leased-fetch-work.js';
import { detectWall, mayBeWall, WALL_SCAN_CHARS } from '../../workers/fetching/page-walls.js';
import { textWithin } from '../../workers/html/document-text.js';
import { loadCases, loadPage } from '../extraction-quality/evaluation-set.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string' },
    page: { type: 'string' },
    repeat: { type: 'string', default: '200' },
  },
});
const rounds = Number(values.rounds);

function onePage(file: string) {
  const bytes = readFileSync(file);
  const head = decodePageHead(file.endsWith('.gz') ? gunzipSync(bytes) : bytes, 'utf-8');
  return Array.from({ length: Number(values.repeat) }, () => ({ url: 'https://page.example/', head }));
}

const pages = values.page
  ? onePage(values.page)
  : loadCases()
      .slice(0, values.limit ? Number(values.limit) : undefined)
      .map((c) => ({ url: c.url, head: decodePageHead(Buffer.from(loadPage(c)), 'utf-8') }));

const checks = (page: (typeof pages)[number]) => {
  const shell = isJavaScriptShell(page.head);
  const wall = detectWall({ html: page.head, requestedUrl: page.url, finalUrl: page.url });
  return { shell, wall };
};
const parseOnly = (page: (typeof pages)[number]) => parsePage(textWithin(page.head, WALL_SCAN_CHARS));
const wallOnly = (page: (typeof pages)[number]) => detectWall({ html: page.head, requestedUrl: page.url, finalUrl: page.url });
/** The pages the wall check parses into a tree: there the check costs more than its first pass. */
const parsed = pages.filter((page) => mayBeWall(textWithin(page.head, WALL_SCAN_CHARS)));

function timeEach(run: (page: (typeof pages)[number]) => unknown, over = pages): number[] {
  const times: number[] = [];
  for (const page of over) {
    const started = performance.now();
    run(page);
    times.push(performance.now() - started);
  }
  return times;
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  return [mean, at(0.5), at(0.9), at(0.99), sorted.at(-1)!].map((v) => v.toFixed(3).padStart(8)).join(' ');
}

const found = { shells: 0, trees: 0, walls: new Map<string, number>() };
for (const page of pages) {
  const { shell, wall } = checks(page);
  if (shell) found.shells++;
  if (mayBeWall(textWithin(page.head, WALL_SCAN_CHARS))) found.trees++;
  if (wall) found.walls.set(wall.code, (found.walls.get(wall.code) ?? 0) + 1);
}

process.stdout.write(`${pages.length} pages, ${rounds} rounds; ms a page: mean, p50, p90, p99, max\n`);
const means: Array<[number, number]> = [];
for (let round = 1; round <= rounds; round++) {
  // Alternate the order so neither always runs on a warmer heap.
  const order = round % 2 === 1 ? (['checks', 'parse'] as const) : (['parse', 'checks'] as const);
  const results: Record<string, number[]> = {};
  for (const which of order) results[which] = timeEach(which === 'checks' ? checks : parseOnly);
  results.walls = timeEach(wallOnly, parsed);
  results.wallParse = timeEach(parseOnly, parsed);
  const mean = (t: number[]) => t.reduce((s, v) => s + v, 0) / t.length;
  means.push([mean(results.checks!), mean(results.parse!)]);
  process.stdout.write(`round ${round}\n`);
  process.stdout.write(`  ${'trawl page checks (shell + walls)'.padEnd(40)} ${summary(results.checks!)}\n`);
  process.stdout.write(`  ${'every page parsed (htmlparser2 + cheerio)'.padEnd(40)} ${summary(results.parse!)}\n`);
  process.stdout.write(`  ${`wall check, the ${parsed.length} pages it parses`.padEnd(40)} ${summary(results.walls)}\n`);
  process.stdout.write(`  ${`  of which their parse alone`.padEnd(40)} ${summary(results.wallParse)}\n`);
}
const ratios = means.map(([c, p]) => c / p).sort((a, b) => a - b);
process.stdout.write(
  `\n${found.trees} of ${pages.length} pages parsed into a tree for the wall check\n` +
    `found: ${found.shells} JavaScript shells; walls ${[...found.walls].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n` +
    `mean time of the checks over a parse of every page: ${ratios.map((r) => r.toFixed(2)).join(', ')}\n`,
);
