import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';

/** What the chunker needs from a tokenizer; tests and other encodings can supply their own. */
export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: number[]): string;
  count(text: string): number;
}

// Page text may contain "<|endoftext|>" and the like; it is text, not a control token.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Runs of one character class longer than this are encoded in pieces of this
 * length. Byte-pair merging costs time quadratic in a pre-token's length (a
 * 16,000-letter run takes 0.3 s, five megabytes of one would take hours);
 * no cl100k token is anywhere near this long, so the only difference is at
 * the cuts inside such runs, at most a token or so per 256 characters.
 */
export const MAX_RUN_CHARS = 256;

// Each kind of run is tried where such a run begins, not at each of its characters (which read up to 257 each time).
const LONG_RUN = new RegExp(
  `(?<!\\p{L})\\p{L}{${MAX_RUN_CHARS + 1},}|(?<![^\\s\\p{L}\\p{N}])[^\\s\\p{L}\\p{N}]{${MAX_RUN_CHARS + 1},}|(?<!\\s)\\s{${MAX_RUN_CHARS + 1},}`,
  'gu',
);

function encodeBounded(text: string): number[] {
  if (text.length <= MAX_RUN_CHARS) return encode(text, AS_TEXT);
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return encode(text, AS_TEXT);
  LONG_RUN.lastIndex = 0;
  const tokens: number[] = [];
  const add = (piece: string) => {
    if (piece !== '') for (const t of encode(piece, AS_TEXT)) tokens.push(t);
  };
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    add(text.slice(from, run.index));
    const end = run.index + run[0].length;
    for (let at = run.index; at < end; ) {
      let cut = Math.min(end, at + MAX_RUN_CHARS);
      // Never split a surrogate pair.
      if (cut < end && (text.charCodeAt(cut) & 0xfc00) === 0xdc00) cut--;
      add(text.slice(at, cut));
      at = cut;
    }
    from = end;
  }
  add(text.slice(from));
  return tokens;
}

/** The cl100k_base encoding (GPT-3.5/GPT-4 and their embeddings). */
export function cl100kTokenizer(): Tokenizer {
  return {
    encode: encodeBounded,
    decode: (tokens) => decode(tokens),
    count: (text) => encodeBounded(text).length,
  };
}
