/**
 * Main-content quality on the shared extraction set: for every page, the share
 * of `with` segments the extracted text contains and of `without` segments it
 * avoids, for our pipeline and, in the same run, for Mozilla Readability (on
 * linkedom) + turndown as the reference.
 *
 *   npm run bench:extraction-quality [-- --half a|b --limit 100 --misses]
 *
 * `--half` keeps one of two fixed halves of the set (split by a hash of the
 * file name): tune heuristics on one half and check them on the other. Without
 * it, every page is scored and our figures are also printed per half.
 *
 * Scored twice: on the text outputs (ours: `text`; Readability's
 * `textContent`), and on the Markdown outputs with Markdown syntax removed
 * (ours: `markdown`; turndown over Readability's HTML).
 *
 * ms/page is timed on a second pass over the set, as in a worker that has
 * been running for a while (the JIT has seen pages like these); the first,
 * cold pass is timed and printed too. `--cold` times only the first pass.
 */
import { parseArgs } from 'node:util';
import { convertHtml } from '../../workers/pipeline/content/index.js';
import { createTurndown, readabilityExtract } from './reference-tools.js';
import {
  NORMALISATION,
  comparable,
  halfOf,
  loadCases,
  loadPage,
  markdownAsText,
  scorePage,
  summarise,
  type Half,
  type PageScore,
  type Summary,
} from './evaluation-set.js';

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
    half: { type: 'string' },
    misses: { type: 'boolean', default: false },
    'no-reference': { type: 'boolean', default: false },
    cold: { type: 'boolean', default: false },
  },
});

if (values.half !== undefined && values.half !== 'a' && values.half !== 'b') throw new Error(`--half must be a or b, not ${values.half}`);
const half = values.half as Half | undefined;
const cases = loadCases()
  .filter((c) => half === undefined || halfOf(c) === half)
  .slice(0, values.limit ? Number(values.limit) : undefined);
const turndown = createTurndown();
const withReference = !values['no-reference'];
const markdownSegment = (s: string): string => markdownAsText(s.replace(/[*`[\]|]/g, ' '));

const ours = { text: [] as PageScore[], markdown: [] as PageScore[], ms: 0 };
const oursByHalf = { a: { text: [] as PageScore[], markdown: [] as PageScore[], ms: 0 }, b: { text: [] as PageScore[], markdown: [] as PageScore[], ms: 0 } };
const reference = { text: [] as PageScore[], markdown: [] as PageScore[], ms: 0 };

// The cold pass: every tool over every page once, untimed but for our own total.
let coldMs = 0;
if (!values.cold) {
  for (const c of cases) {
    const html = loadPage(c);
    const started = performance.now();
    convertHtml(html, { url: c.url });
    coldMs += performance.now() - started;
    if (withReference) {
      try {
        turndown.turndown(readabilityExtract(html).html || '<p></p>');
      } catch {
        // As in the timed pass below.
      }
    }
  }
}

for (const c of cases) {
  const html = loadPage(c);
  let started = performance.now();
  const result = convertHtml(html, { url: c.url });
  const text = result.text;
  const markdown = result.markdown;
  const ms = performance.now() - started;
  const textScore = scorePage(text, c);
  const markdownScore = scorePage(markdownAsText(markdown), c, markdownSegment);
  const own = oursByHalf[halfOf(c)];
  for (const into of [ours, own]) {
    into.ms += ms;
    into.text.push(textScore);
    into.markdown.push(markdownScore);
  }
  if (values.misses && (textScore.withFound < textScore.withTotal || textScore.withoutAvoided < textScore.withoutTotal)) {
    const haystack = comparable(text);
    const missed = c.with.filter((s) => !haystack.includes(comparable(s)));
    const leaked = c.without.filter((s) => haystack.includes(comparable(s)));
    console.log(`\n## ${c.id} (${c.file.split('/').pop()}) text ${text.length} chars`);
    for (const s of missed) console.log(`  missing: ${s.slice(0, 110)}`);
    for (const s of leaked) console.log(`  leaked:  ${s.slice(0, 110)}`);
  }
  if (withReference) {
    started = performance.now();
    const article = readabilityExtract(html);
    let markdown = '';
    try {
      markdown = turndown.turndown(article.html || '<p></p>');
    } catch {
      // turndown's GFM plugin throws on some tables; the page then scores as empty Markdown.
    }
    reference.ms += performance.now() - started;
    reference.text.push(scorePage(article.text, c));
    reference.markdown.push(scorePage(markdownAsText(markdown), c, markdownSegment));
  }
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
function row(name: string, s: Summary, ms: number): string {
  return (
    `${name.padEnd(36)} ${pct(s.withRecall).padStart(8)} ${pct(s.withoutAvoidance).padStart(10)} ${pct(s.combined).padStart(9)}` +
    `   ${`${s.withFound}/${s.withTotal}`.padStart(10)} ${`${s.withoutAvoided}/${s.withoutTotal}`.padStart(10)} ${(ms / Math.max(1, s.pages)).toFixed(1).padStart(8)}`
  );
}

console.log(`\nExtraction quality on ${cases.length} pages${half ? ` (half ${half})` : ''} (${NORMALISATION}).`);
console.log('with-recall: mean per page of the share of `with` segments found; without-avoidance: mean per page of the share of');
console.log('`without` segments absent; combined: harmonic mean of the two. Counts are segments over the whole set.\n');
console.log(`${'tool'.padEnd(36)} ${'with'.padStart(8)} ${'without'.padStart(10)} ${'combined'.padStart(9)}   ${'with n'.padStart(10)} ${'without n'.padStart(10)} ${'ms/page'.padStart(8)}`);
console.log(row('trawl (text)', summarise(ours.text), ours.ms));
if (withReference) console.log(row('readability+linkedom (textContent)', summarise(reference.text), reference.ms));
console.log(row('trawl (markdown)', summarise(ours.markdown), ours.ms));
if (withReference) console.log(row('readability+linkedom+turndown (md)', summarise(reference.markdown), reference.ms));
if (!values.cold) console.log(`\nms/page on the second pass over the set; the first, cold pass took ${(coldMs / Math.max(1, cases.length)).toFixed(1)} ms/page (trawl).`);
if (half === undefined) {
  console.log('\nPer half of the set (split by a hash of the file name; `--half a|b` runs one):\n');
  for (const h of ['a', 'b'] as const) {
    const part = oursByHalf[h];
    console.log(row(`trawl (text), half ${h}`, summarise(part.text), part.ms));
    console.log(row(`trawl (markdown), half ${h}`, summarise(part.markdown), part.ms));
  }
}
