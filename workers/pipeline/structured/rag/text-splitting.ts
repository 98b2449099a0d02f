import type { Tokenizer } from './tokenizer.js';

/** A span of the source text; `text` equals `source.slice(start, end)`. */
export interface Span {
  start: number;
  end: number;
  text: string;
}

/** A fixed locale keeps the sentence split the same on every machine. */
export function sentenceSegmenter(): Intl.Segmenter {
  return new Intl.Segmenter('en', { granularity: 'sentence' });
}

/** Sentence spans of `text` (offsets relative to `offset`), surrounding whitespace trimmed. */
export function sentenceSpans(text: string, offset: number, segmenter: Intl.Segmenter): Span[] {
  const spans: Span[] = [];
  for (const segment of segmenter.segment(text)) {
    const trimmed = segment.segment.replace(/\s+$/, '');
    const lead = trimmed.length - trimmed.replace(/^\s+/, '').length;
    if (trimmed.trim() === '') continue;
    const start = offset + segment.index + lead;
    spans.push({ start, end: offset + segment.index + trimmed.length, text: trimmed.slice(lead) });
  }
  return spans;
}

/** Characters one token can span, generously; bounds the search for a cut. */
const MAX_CHARS_PER_TOKEN = 32;

function isLowSurrogateAt(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Cuts text into pieces of at most `limit` tokens, each as long as it can be:
 * the cut is found by counting the re-encoded piece, since byte-level tokens
 * of CJK text and emoji need not start on a character. A cut prefers the
 * last whitespace in the second half of the piece and never splits a
 * character; a single character that alone encodes to more than `limit`
 * tokens (possible only for tiny limits) becomes its own piece.
 */
export function tokenSpans(text: string, offset: number, limit: number, tokenizer: Tokenizer): Span[] {
  const spans: Span[] = [];
  let start = 0;
  while (start < text.length) {
    let lo = start + 1;
    if (isLowSurrogateAt(text, lo)) lo++;
    let hi = Math.min(text.length, start + limit * MAX_CHARS_PER_TOKEN);
    if (isLowSurrogateAt(text, hi)) hi--;
    if (tokenizer.count(text.slice(start, hi)) > limit) {
      // Largest end in [lo, hi) whose piece fits; lo always stands (one character).
      let bad = hi;
      while (bad - lo > 1) {
        const mid = Math.floor((lo + bad) / 2);
        const end = isLowSurrogateAt(text, mid) ? mid - 1 : mid;
        if (end > lo && tokenizer.count(text.slice(start, end)) <= limit) lo = end;
        else if (end <= lo) break;
        else bad = end;
      }
      hi = lo;
      const space = text.slice(start, hi).search(/\s\S*$/);
      const atSpace = start + space + 1;
      if (space > (hi - start) / 2 && tokenizer.count(text.slice(start, atSpace)) <= limit) hi = atSpace;
    }
    const piece = text.slice(start, hi);
    if (piece.trim() !== '') spans.push({ start: offset + start, end: offset + hi, text: piece });
    start = hi;
  }
  return spans;
}
