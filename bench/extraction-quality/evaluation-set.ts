/**
 * The shared extraction data set (shared/data/extraction beside the repo):
 * real pages, each with text segments its main content must contain and
 * segments it must not. Read in place, never copied into the repository.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { decodeText, detectCharset } from '../../workers/fetching/charset.js';

export const DATA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data/extraction');

export interface EvaluationCase {
  id: string;
  /** The page's address when the case is keyed by it, else a placeholder on example.com. */
  url: string;
  file: string;
  with: string[];
  without: string[];
}

interface CasesFile {
  source: string;
  cases: Record<string, { file: string; with: string[]; without: string[] }>;
}

export function loadCases(dir = DATA_DIR): EvaluationCase[] {
  const parsed = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8')) as CasesFile;
  return Object.entries(parsed.cases)
    .map(([id, c]) => ({
      id,
      url: /^https?:\/\//.test(id.trim()) ? id.trim() : `https://example.com/${encodeURIComponent(id)}`,
      file: path.join(dir, c.file),
      with: c.with,
      without: c.without,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export type Half = 'a' | 'b';

/**
 * A fixed split of the set into two halves by a hash of the page's file name,
 * so heuristics can be tuned on one half and checked on the other, which they
 * never saw. The split does not depend on the order or number of cases.
 */
export function halfOf(c: EvaluationCase): Half {
  const digest = createHash('sha256').update(path.basename(c.file)).digest();
  return (digest[0]! & 1) === 0 ? 'a' : 'b';
}

/** The page decoded as the fetch tiers decode an HTML response whose Content-Type names no charset (BOM, then the page's meta charset, else UTF-8). */
export function loadPage(c: EvaluationCase): string {
  const bytes = gunzipSync(readFileSync(c.file));
  return decodeText(bytes, detectCharset(bytes, 'text/html'));
}

export const NORMALISATION =
  'segments and output compared after Unicode NFKC, lower-casing, and removing all whitespace (including no-break and zero-width spaces) and soft hyphens';

/** Whitespace differs between extractors only in layout, so it is removed entirely before comparing. */
export function comparable(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\s\u00ad\u200b-\u200d\u2060\ufeff]+/g, '');
}

/** Markdown syntax removed so Markdown output compares like text: link targets, emphasis, escapes, markers. */
export function markdownAsText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, ']')
    .replace(/\\([\\`*_{}[\]()#+\-.!|~<>&])/g, '$1')
    .replace(/^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d+[.)][ \t]+|```.*|\|?[ \t]*-{3,}.*)/gm, '')
    .replace(/\*\*|__|~~|[*`[\]|]/g, ' ');
}

export interface PageScore {
  withFound: number;
  withTotal: number;
  withoutAvoided: number;
  withoutTotal: number;
}

export function scorePage(output: string, c: EvaluationCase, prepare: (segment: string) => string = (s) => s): PageScore {
  const haystack = comparable(output);
  let withFound = 0;
  let withoutAvoided = 0;
  for (const segment of c.with) if (haystack.includes(comparable(prepare(segment)))) withFound++;
  for (const segment of c.without) if (!haystack.includes(comparable(prepare(segment)))) withoutAvoided++;
  return { withFound, withTotal: c.with.length, withoutAvoided, withoutTotal: c.without.length };
}

export interface Summary {
  pages: number;
  /** Mean over pages of the share of `with` segments found. */
  withRecall: number;
  /** Mean over pages of the share of `without` segments absent. */
  withoutAvoidance: number;
  /** Harmonic mean of the two. */
  combined: number;
  withFound: number;
  withTotal: number;
  withoutAvoided: number;
  withoutTotal: number;
}

export function summarise(scores: PageScore[]): Summary {
  let recall = 0;
  let avoidance = 0;
  let withPages = 0;
  let withoutPages = 0;
  const s = { withFound: 0, withTotal: 0, withoutAvoided: 0, withoutTotal: 0 };
  for (const p of scores) {
    if (p.withTotal > 0) {
      recall += p.withFound / p.withTotal;
      withPages++;
    }
    if (p.withoutTotal > 0) {
      avoidance += p.withoutAvoided / p.withoutTotal;
      withoutPages++;
    }
    s.withFound += p.withFound;
    s.withTotal += p.withTotal;
    s.withoutAvoided += p.withoutAvoided;
    s.withoutTotal += p.withoutTotal;
  }
  const withRecall = withPages > 0 ? recall / withPages : 0;
  const withoutAvoidance = withoutPages > 0 ? avoidance / withoutPages : 0;
  const combined = withRecall + withoutAvoidance > 0 ? (2 * withRecall * withoutAvoidance) / (withRecall + withoutAvoidance) : 0;
  return { pages: scores.length, withRecall, withoutAvoidance, combined, ...s };
}
