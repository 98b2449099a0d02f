import { Tokenizer } from 'htmlparser2';

/**
 * htmlparser2's tokenizer, moving over runs of characters that cannot end
 * the current token in one tight loop instead of one turn of its state
 * machine each.
 *
 * The stock tokenizer calls a state function for every character of the
 * page. In text and quoted attribute values (with entity decoding on) only
 * `<`, `&` or the quote can change anything; in a tag or attribute name only
 * the characters that end it. Each override below handles the character it
 * is given exactly as the stock state does when that character matters, and
 * otherwise skips to the last character before the next one that does, where
 * the tokenizer's own loop carries on: the events, their indices and the
 * states in between are the stock tokenizer's. `fastForwardTo` (comments,
 * scripts, styles, declarations) becomes one `indexOf`.
 *
 * It reaches into the tokenizer's internals (`buffer`, `offset`, `index` and
 * the state functions), so htmlparser2's version is pinned, and
 * test/workers/html/run-skipping-tokenizer.test.ts compares every event and
 * index with the stock tokenizer's on real pages, whole and in chunks. Where
 * an internal it needs is missing, the stock tokenizer is used.
 */

const LT = 0x3c;
const GT = 0x3e;
const AMP = 0x26;
const SLASH = 0x2f;
const EQ = 0x3d;
const DOUBLE_QUOTE = 0x22;
const WHITESPACE = [0x20, 0x0a, 0x09, 0x0c, 0x0d];

/** For each ASCII code, whether it ends a run (no character past ASCII ever does). */
function stops(...codes: number[]): Uint8Array {
  const table = new Uint8Array(128);
  for (const code of codes) table[code] = 1;
  return table;
}

const TEXT_STOPS = stops(LT, AMP);
const DOUBLE_QUOTED_STOPS = stops(DOUBLE_QUOTE, AMP);
const SINGLE_QUOTED_STOPS = stops(0x27, AMP);
const TAG_NAME_STOPS = stops(SLASH, GT, ...WHITESPACE);
const ATTRIBUTE_NAME_STOPS = stops(EQ, SLASH, GT, ...WHITESPACE);
const CLOSING_TAG_NAME_STOPS = stops(GT, ...WHITESPACE);

const ends = (table: Uint8Array, c: number) => c < 128 && table[c] === 1;

/** What the overrides use of the tokenizer; TypeScript calls it private. */
interface TokenizerInternals {
  buffer: string;
  offset: number;
  index: number;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  stateInTagName(c: number): void;
  stateInAttributeName(c: number): void;
  stateInClosingTagName(c: number): void;
}

const Base = Tokenizer as unknown as new (...args: ConstructorParameters<typeof Tokenizer>) => TokenizerInternals;

class Skipping extends Base {
  /**
   * Moves `index` over the characters after it up to the next one that ends the run (or the buffer's end),
   * leaving it on the last character before, so the tokenizer's loop hands that one to the state next.
   */
  private skipRun(table: Uint8Array): void {
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    while (i < buffer.length && !ends(table, buffer.charCodeAt(i))) i++;
    this.index = i - 1 + this.offset;
  }

  override stateText(c: number): void {
    if (ends(TEXT_STOPS, c)) super.stateText(c);
    else this.skipRun(TEXT_STOPS);
  }

  override handleInAttributeValue(c: number, quote: number): void {
    const table = quote === DOUBLE_QUOTE ? DOUBLE_QUOTED_STOPS : SINGLE_QUOTED_STOPS;
    if (ends(table, c)) super.handleInAttributeValue(c, quote);
    else this.skipRun(table);
  }

  override stateInTagName(c: number): void {
    if (ends(TAG_NAME_STOPS, c)) super.stateInTagName(c);
    else this.skipRun(TAG_NAME_STOPS);
  }

  override stateInAttributeName(c: number): void {
    if (ends(ATTRIBUTE_NAME_STOPS, c)) super.stateInAttributeName(c);
    else this.skipRun(ATTRIBUTE_NAME_STOPS);
  }

  override stateInClosingTagName(c: number): void {
    if (ends(CLOSING_TAG_NAME_STOPS, c)) super.stateInClosingTagName(c);
    else this.skipRun(CLOSING_TAG_NAME_STOPS);
  }

  /** The stock contract: `index` on the character found and true, or on the buffer's last character and false. */
  fastForwardTo(c: number): boolean {
    const at = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
    if (at >= 0) {
      this.index = at + this.offset;
      return true;
    }
    this.index = this.buffer.length - 1 + this.offset;
    return false;
  }
}

const OVERRIDDEN = ['stateText', 'handleInAttributeValue', 'stateInTagName', 'stateInAttributeName', 'stateInClosingTagName', 'fastForwardTo'];

function internalsPresent(): boolean {
  const proto = Tokenizer.prototype as unknown as Record<string, unknown>;
  if (!OVERRIDDEN.every((name) => typeof proto[name] === 'function')) return false;
  const probe = new Tokenizer({}, {} as ConstructorParameters<typeof Tokenizer>[1]) as unknown as Record<string, unknown>;
  return typeof probe.buffer === 'string' && typeof probe.offset === 'number' && typeof probe.index === 'number';
}

/** The tokenizer to hand htmlparser2's Parser (its `Tokenizer` option). */
export const RunSkippingTokenizer: typeof Tokenizer = internalsPresent() ? (Skipping as unknown as typeof Tokenizer) : Tokenizer;
