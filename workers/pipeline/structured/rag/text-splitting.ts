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

/**
 * Longest piece handed to the segmenter at once. V8's segment iterator costs
 * time proportional to the text for each step, so one call over a long text
 * is quadratic (20,000 sentences take most of a second); windows keep it linear.
 */
const SEGMENT_WINDOW = 1_024;

/** . ! ? and their full-width forms. */
const SENTENCE_END = new Set([46, 33, 63, 0x3002, 0xff01, 0xff1f]);

/** Where to end a window at or before `limit`: after a line break, else after sentence punctuation and space, else after a space. */
function windowEnd(text: string, from: number, limit: number): number {
  if (limit >= text.length) return text.length;
  // Searches stay inside the window's second half, so each window costs its own length.
  const half = from + Math.floor((limit - from) / 2);
  let space = -1;
  let sentence = -1;
  for (let i = limit - 1; i >= half; i--) {
    const c = text.charCodeAt(i);
    if (c === 10) return i + 1;
    if (c === 32 || c === 9) {
      if (space < 0) space = i;
      if (sentence < 0 && SENTENCE_END.has(text.charCodeAt(i - 1))) sentence = i;
    }
  }
  if (sentence >= 0) return sentence + 1;
  if (space >= 0) return space + 1;
  return isLowSurrogateAt(text, limit) ? limit - 1 : limit;
}

/** Sentence spans of `text` (offsets relative to `offset`), surrounding whitespace trimmed. */
export function sentenceSpans(text: string, offset: number, segmenter: Intl.Segmenter): Span[] {
  const spans: Span[] = [];
  for (let from = 0; from < text.length; ) {
    const to = windowEnd(text, from, from + SEGMENT_WINDOW);
    const window = from === 0 && to === text.length ? text : text.slice(from, to);
    for (const segment of segmenter.segment(window)) {
      // trimEnd/trimStart strip exactly \s, in linear time (a /\s+$/ search is quadratic on long blank runs).
      const trimmed = segment.segment.trimEnd();
      const lead = trimmed.length - trimmed.trimStart().length;
      if (trimmed.trim() === '') continue;
      const at = offset + from + segment.index;
      spans.push({ start: at + lead, end: at + trimmed.length, text: trimmed.slice(lead) });
    }
    from = to;
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
