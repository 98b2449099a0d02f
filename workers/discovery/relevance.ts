/**
 * Relevance of a discovered URL to a map `search` query, from 0 to 1, over
 * three fields: the URL path, the page title and the anchor text of links to
 * it (title and anchor text may be missing).
 *
 * Scoring. Query and fields are split into terms: runs of letters and digits,
 * lower-cased, accents removed (the path percent-decoded first, so `/caf%C3%A9`
 * gives `cafe`; `-`, `_`, `.` and `/` separate terms). Each query term earns
 * its best match over the fields:
 *   - 1.0 when a field has the term itself,
 *   - 0.7 when a field term starts with it (`crawl` in `crawler`) or, for
 *     field terms of at least 4 characters, it starts with a field term
 *     (`crawling` → `crawl`),
 *   - 0 otherwise,
 * times the field weight: path 1.0, title 1.0, anchor text 0.9.
 * coverage = the mean over the query's distinct terms. A phrase bonus of 1
 * applies when the query's terms appear consecutively, in order, in one field
 * (for a one-term query: when some field has the term itself), else 0.
 *
 *   score = 0.9 × coverage + 0.1 × phrase, rounded to 4 decimals
 *
 * A query with no terms scores 0 for every URL.
 */

export interface RelevanceFields {
  path: string;
  title?: string | null;
  anchorText?: string | null;
}

const FIELD_WEIGHTS = { path: 1, title: 1, anchorText: 0.9 } as const;
const PARTIAL_MATCH = 0.7;
const MIN_STEM_LENGTH = 4;

/** Lower-cased, accent-free terms of a text. */
export function relevanceTerms(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function termMatch(term: string, fieldTerms: readonly string[]): number {
  let best = 0;
  for (const candidate of fieldTerms) {
    if (candidate === term) return 1;
    if (candidate.startsWith(term) || (candidate.length >= MIN_STEM_LENGTH && term.startsWith(candidate))) best = PARTIAL_MATCH;
  }
  return best;
}

function containsPhrase(fieldTerms: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let start = 0; start + phrase.length <= fieldTerms.length; start++) {
    for (let i = 0; i < phrase.length; i++) if (fieldTerms[start + i] !== phrase[i]) continue outer;
    return true;
  }
  return false;
}

export function relevanceScore(query: string, fields: RelevanceFields): number {
  const phrase = relevanceTerms(query);
  const terms = [...new Set(phrase)];
  if (terms.length === 0) return 0;
  const weighted: Array<{ terms: string[]; weight: number }> = [
    { terms: relevanceTerms(decodedPath(fields.path)), weight: FIELD_WEIGHTS.path },
    { terms: relevanceTerms(fields.title ?? ''), weight: FIELD_WEIGHTS.title },
    { terms: relevanceTerms(fields.anchorText ?? ''), weight: FIELD_WEIGHTS.anchorText },
  ];
  let total = 0;
  for (const term of terms) {
    total += Math.max(...weighted.map((f) => f.weight * termMatch(term, f.terms)));
  }
  const coverage = total / terms.length;
  const phraseHit = weighted.some((f) => containsPhrase(f.terms, phrase)) ? 1 : 0;
  return Math.round((0.9 * coverage + 0.1 * phraseHit) * 10_000) / 10_000;
}
