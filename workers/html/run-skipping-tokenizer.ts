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

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;

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
  /** Puts `index` on the last character before `to`, so the tokenizer's loop hands `to`'s character to the state next. */
  private skipTo(to: number): void {
    this.index = to - 1 + this.offset;
  }

  override stateText(c: number): void {
    if (c === LT || c === AMP) return super.stateText(c);
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    for (; i < buffer.length; i++) {
      const d = buffer.charCodeAt(i);
      if (d === LT || d === AMP) break;
    }
    this.skipTo(i);
  }

  override handleInAttributeValue(c: number, quote: number): void {
    if (c === quote || c === AMP) return super.handleInAttributeValue(c, quote);
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    for (; i < buffer.length; i++) {
      const d = buffer.charCodeAt(i);
      if (d === quote || d === AMP) break;
    }
    this.skipTo(i);
  }

  override stateInTagName(c: number): void {
    if (c === SLASH || c === GT || isWhitespace(c)) return super.stateInTagName(c);
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    for (; i < buffer.length; i++) {
      const d = buffer.charCodeAt(i);
      if (d === SLASH || d === GT || isWhitespace(d)) break;
    }
    this.skipTo(i);
  }

  override stateInAttributeName(c: number): void {
    if (c === EQ || c === SLASH || c === GT || isWhitespace(c)) return super.stateInAttributeName(c);
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    for (; i < buffer.length; i++) {
      const d = buffer.charCodeAt(i);
      if (d === EQ || d === SLASH || d === GT || isWhitespace(d)) break;
    }
    this.skipTo(i);
  }

  override stateInClosingTagName(c: number): void {
    if (c === GT || isWhitespace(c)) return super.stateInClosingTagName(c);
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    for (; i < buffer.length; i++) {
      const d = buffer.charCodeAt(i);
      if (d === GT || isWhitespace(d)) break;
    }
    this.skipTo(i);
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
