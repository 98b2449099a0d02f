import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';

/** What the chunker needs from a tokenizer; tests and other encodings can supply their own. */
export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: number[]): string;
  count(text: string): number;
}

// Page text may contain "<|endoftext|>" and the like; it is text, not a control token.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** The cl100k_base encoding (GPT-3.5/GPT-4 and their embeddings). */
export function cl100kTokenizer(): Tokenizer {
  return {
    encode: (text) => encode(text, AS_TEXT),
    decode: (tokens) => decode(tokens),
    count: (text) => encode(text, AS_TEXT).length,
  };
}
