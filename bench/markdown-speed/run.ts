/**
 * HTML to Markdown speed on the pages of the shared extraction set: our
 * converter (main content and full page) against turndown (+ GFM plugin) and
 * node-html-markdown, each run over every page after a warm-up, in the same
 * process, one after the other.
 *
 *   npm run bench:markdown-speed [-- --rounds 3 --warmup 1 --limit 200]
 */
import { parseArgs } from 'node:util';
import { htmlToMarkdown } from '../../workers/pipeline/content/index.js';
import { loadCases, loadPage } from '../extraction-quality/evaluation-set.js';
import { createNodeHtmlMarkdown, createTurndown } from '../extraction-quality/reference-tools.js';
import { quantile } from '../quantile.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    limit: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);

const pages = loadCases()
  .slice(0, values.limit ? Number(values.limit) : undefined)
  .map((c) => ({ url: c.url, html: loadPage(c) }));
const totalBytes = pages.reduce((sum, p) => sum + Buffer.byteLength(p.html), 0);

const turndown = createTurndown();
const nhm = createNodeHtmlMarkdown();

interface Tool {
  name: string;
  convert: (html: string, url: string) => string;
}

const tools: Tool[] = [
  { name: 'trawl htmlToMarkdown (main content)', convert: (html, url) => htmlToMarkdown(html, { url }) },
  { name: 'trawl htmlToMarkdown (full page)', convert: (html, url) => htmlToMarkdown(html, { url, onlyMainContent: false }) },
  { name: 'turndown + gfm (full page)', convert: (html) => turndown.turndown(html) },
  { name: 'node-html-markdown (full page)', convert: (html) => nhm.translate(html) },
];

interface Result {
  name: string;
  mbPerSecond: number;
  mean: number;
  p50: number;
  p95: number;
  outputChars: number;
  errors: number;
}

/** A page a tool throws on still counts with the time it took to fail. */
function run(tool: Tool, html: string, url: string): string | null {
  try {
    return tool.convert(html, url);
  } catch {
    return null;
  }
}

function measure(tool: Tool): Result {
  for (let r = 0; r < warmup; r++) for (const p of pages) run(tool, p.html, p.url);
  const perPage: number[] = [];
  let elapsed = 0;
  let outputChars = 0;
  let errors = 0;
  for (let r = 0; r < rounds; r++) {
    for (const p of pages) {
      const started = performance.now();
      const out = run(tool, p.html, p.url);
      const ms = performance.now() - started;
      perPage.push(ms);
      elapsed += ms;
      if (r === 0) {
        outputChars += out?.length ?? 0;
        if (out === null) errors++;
      }
    }
  }
  perPage.sort((a, b) => a - b);
  return {
    name: tool.name,
    mbPerSecond: (totalBytes * rounds) / 1e6 / (elapsed / 1000),
    mean: elapsed / perPage.length,
    p50: quantile(perPage, 0.5),
    p95: quantile(perPage, 0.95),
    outputChars,
    errors,
  };
}

console.log(`${pages.length} pages, ${(totalBytes / 1e6).toFixed(1)} MB of HTML; ${warmup} warm-up round(s), ${rounds} measured round(s) per tool.\n`);
const results = tools.map(measure);
const baseline = results.find((r) => r.name.startsWith('turndown'))!;
console.log(`${'tool'.padEnd(38)} ${'MB/s'.padStart(7)} ${'mean ms'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'vs turndown'.padStart(12)} ${'output MB'.padStart(10)} ${'errors'.padStart(7)}`);
for (const r of results) {
  console.log(
    `${r.name.padEnd(38)} ${r.mbPerSecond.toFixed(1).padStart(7)} ${r.mean.toFixed(2).padStart(8)} ${r.p50.toFixed(2).padStart(7)} ${r.p95.toFixed(2).padStart(7)} ${`${(r.mbPerSecond / baseline.mbPerSecond).toFixed(1)}x`.padStart(12)} ${(r.outputChars / 1e6).toFixed(2).padStart(10)} ${String(r.errors).padStart(7)}`,
  );
}
