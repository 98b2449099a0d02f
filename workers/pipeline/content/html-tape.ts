import { Parser } from 'htmlparser2';
import { BLOCK, FALLBACK, PARAGRAPH, SKIP, VOID, tagKind } from './tag-kinds.js';
import { classifyAttributes } from './boilerplate-patterns.js';
import { createLinkCollector, LINK_PARSER_OPTIONS, type LinkCollector } from '../../discovery/link-extractor.js';
import { limitNesting, MAX_NESTING_DEPTH, NestingOverflow } from '../nesting-guard.js';
import { textLength, textPieces, wholeText, type DocumentText } from '../../html/document-text.js';

/**
 * A page recorded once from htmlparser2's callbacks: a flat event tape
 * (open, text, close) plus one row per element holding what the scoring and
 * the emitters need. Elements are numbered in document order, so a parent
 * always has a smaller number than its children and a subtree is the tape
 * range between its open and close events.
 *
 * Content that is never rendered (script, style, svg, hidden elements ...) is
 * not recorded at all.
 */
export interface Tape {
  /** Events: `id * 4` opens element id, `id * 4 + 1` closes it, `t * 4 + 2` is text t. */
  ops: number[];
  texts: string[];
  tag: string[];
  attrs: Record<string, string>[];
  /** The numeric columns below hold one entry per element (`tag.length` of them). */
  kind: Int32Array;
  parent: Int32Array;
  /** Index in `ops` of the element's open and close events. */
  openAt: Int32Array;
  closeAt: Int32Array;
  /** Bits from `classifyAttributes`. */
  hints: Int32Array;
  /** Non-space characters of text in the subtree, and how many of them are inside links. */
  chars: Int32Array;
  linkChars: Int32Array;
  /** Characters of text whose nearest paragraph-like ancestor is this element. */
  ownChars: Int32Array;
  ownLinkChars: Int32Array;
  ownCommas: Int32Array;
  /** Block-level descendants (used to tell layout tables and real paragraphs apart). */
  blocks: Int32Array;
  head: HeadInfo;
}

const COLUMNS = ['kind', 'parent', 'openAt', 'closeAt', 'hints', 'chars', 'linkChars', 'ownChars', 'ownLinkChars', 'ownCommas', 'blocks'] as const;
type Column = (typeof COLUMNS)[number];

/**
 * The numeric columns of a tape in one buffer, grown by doubling. Typed
 * columns keep a page's element statistics out of the garbage-collected heap
 * (arrays of numbers grown one push at a time allocated about three times
 * their final size, a quarter of all the pipeline allocated for a page), and
 * a recorded element's counters start at zero. The first `keep` entries of
 * `from` are copied over.
 */
function columns(capacity: number, from?: Pick<Tape, Column>, keep = 0): Pick<Tape, Column> {
  const buffer = new ArrayBuffer(capacity * 4 * COLUMNS.length);
  const out = {} as Pick<Tape, Column>;
  COLUMNS.forEach((name, i) => {
    const column = new Int32Array(buffer, i * capacity * 4, capacity);
    if (from && keep > 0) column.set(from[name].subarray(0, keep));
    out[name] = column;
  });
  return out;
}

/** The columns cut to the recorded elements, once the recording ends. */
function trimColumns(tape: Pick<Tape, Column>, count: number): void {
  for (const name of COLUMNS) tape[name] = tape[name].subarray(0, count);
}

/** Elements a page is expected to record, by its length (one per 256 characters; real pages record about one per 180), to size the columns at first. */
function expectedElements(html: DocumentText): number {
  return Math.max(64, textLength(html) >> 8);
}

export interface MetaEntry {
  key: string;
  value: string;
}

export interface HeadInfo {
  title: string;
  baseHref: string;
  lang: string;
  canonical: string;
  meta: MetaEntry[];
  /** `datetime` of the first `<time>` marked as the publication date, if any. */
  publishedTime: string;
  /** The text of each `application/ld+json` script, as written (recorded for main-content selection only). */
  structuredData: string[];
}

const JSON_LD = /^\s*application\/ld\+json\s*$/i;

/** Characters of a text other than white space: what the tape counts as text. */
export function visibleChars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 32) n++;
  return n;
}

/** The text of the whole page, head included. */
export function pageChars(tape: Tape): number {
  let chars = 0;
  for (let id = 0; id < tape.tag.length; id++) if (tape.parent[id] === -1) chars += tape.chars[id]!;
  return chars;
}

/** `chars` less the text of each subtree among the elements first..last whose root `cut` marks (a subtree counted once). */
export function textLess(tape: Tape, first: number, last: number, chars: number, cut: (id: number) => boolean): number {
  for (let id = first; id <= last; id++) {
    if (cut(id)) {
      chars -= tape.chars[id]!;
      id = lastDescendant(tape, id);
    }
  }
  return chars;
}

/** Last element id inside the subtree of `id`: the one opened last, since ids follow opening order. */
export function lastDescendant(tape: Tape, id: number): number {
  const { ops } = tape;
  for (let i = tape.closeAt[id]! - 1; i > tape.openAt[id]!; i--) {
    const op = ops[i]!;
    if ((op & 3) === 0) return op >> 2;
  }
  return id;
}

/** The text of the subtree of `id`, its pieces joined as recorded. */
export function subtreeText(tape: Tape, id: number): string {
  let text = '';
  for (let i = tape.openAt[id]! + 1; i < tape.closeAt[id]!; i++) {
    const op = tape.ops[i]!;
    if ((op & 3) === 2) text += tape.texts[op >> 2]!;
  }
  return text;
}

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** Read in one pass over the element's own attributes, as `classifyAttributes` does. */
function isHidden(attribs: Record<string, string>): boolean {
  for (const name in attribs) {
    if (name === 'hidden') return true;
    if (name === 'style') {
      const style = attribs[name]!;
      if (style.length > 8 && HIDDEN_STYLE.test(style)) return true;
    }
  }
  return false;
}

/**
 * `forSelection: false` skips what only main-content selection uses (class,
 * id and role words, text statistics): a full-page conversion needs neither.
 * `links`, when given, is told of every element and text of the page as it
 * is parsed (skipped and hidden ones too), so discovery reads the page's
 * links in this same pass. Throws NestingOverflow as soon as elements nest
 * deeper than `maxDepth` (htmlparser2's open-element stack costs time in
 * proportion to its depth, and the readers of the tape recurse): the caller
 * records `limitNesting` of the page instead (`recordPage`).
 */
export function recordTape(html: DocumentText, forSelection = true, links?: LinkCollector, maxDepth = MAX_NESTING_DEPTH): Tape {
  let capacity = expectedElements(html);
  const tape: Tape = {
    ops: [],
    texts: [],
    tag: [],
    attrs: [],
    ...columns(capacity),
    head: { title: '', baseHref: '', lang: '', canonical: '', meta: [], publishedTime: '', structuredData: [] },
  };
  const { ops, texts, head } = tape;
  // Open elements, innermost last; -1 marks a skipped element so closes stay balanced.
  const stack: number[] = [];
  // Nearest paragraph-like open element.
  const paragraphs: number[] = [];
  let skipDepth = 0;
  let linkDepth = 0;
  let titleDepth = 0;
  let svgDepth = 0;
  let titleText = '';
  // The text of the JSON-LD script being read, if one is open.
  let structured: string | undefined;
  const classNames = new Map<string, number>();

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        links?.onopentag(name, attribs);
        if (name === 'svg' || name === 'math') svgDepth++;
        if (svgDepth === 0) {
          if (name === 'meta') collectMeta(head, attribs);
          else if (name === 'link') {
            if (!head.canonical && attribs.href && /(?:^|\s)canonical(?:\s|$)/i.test(attribs.rel ?? '')) head.canonical = attribs.href;
          } else if (name === 'base') {
            if (!head.baseHref && attribs.href) head.baseHref = attribs.href;
          } else if (name === 'html') {
            if (!head.lang && attribs.lang) head.lang = attribs.lang.trim();
          } else if (name === 'title') titleDepth++;
          else if (name === 'script') {
            if (forSelection && attribs.type !== undefined && JSON_LD.test(attribs.type)) structured = '';
          } else if (name === 'time' && !head.publishedTime && attribs.datetime && /datepublished|published/i.test(`${attribs.itemprop ?? ''} ${attribs.class ?? ''}`)) {
            head.publishedTime = attribs.datetime;
          }
        }
        if (stack.length >= maxDepth) throw new NestingOverflow();
        if (skipDepth > 0) {
          skipDepth++;
          stack.push(-1);
          return;
        }
        // Main-content selection records noscript content as a fallback; every other output skips it.
        const kind = forSelection && name === 'noscript' ? FALLBACK | BLOCK | PARAGRAPH : tagKind(name);
        if (kind & SKIP || isHidden(attribs)) {
          skipDepth = 1;
          stack.push(-1);
          return;
        }
        const id = tape.tag.length;
        if (id === capacity) {
          capacity *= 2;
          Object.assign(tape, columns(capacity, tape, id));
        }
        const parent = stack.length > 0 ? stack[stack.length - 1]! : -1;
        // A noscript fallback is written as the division it stands for, so no output hides it from a scripted browser.
        tape.tag.push(kind & FALLBACK ? 'div' : name);
        tape.attrs.push(attribs);
        tape.kind[id] = kind;
        tape.parent[id] = parent;
        tape.openAt[id] = ops.length;
        tape.closeAt[id] = -1;
        tape.hints[id] = forSelection ? classifyAttributes(attribs, classNames) : 0;
        // The counters (chars ... blocks) of a new element are zero: columns start zeroed and each id is written once.
        ops.push(id * 4);
        stack.push(id);
        if (kind & PARAGRAPH) paragraphs.push(id);
        if (name === 'a') linkDepth++;
      },
      ontext(data) {
        links?.ontext(data);
        if (titleDepth > 0) titleText += data;
        if (structured !== undefined) structured += data;
        if (skipDepth > 0 || stack.length === 0) return;
        if (data.length === 0) return;
        // The tokenizer splits text at entities; one run of text is one event, so escaping sees it whole.
        const lastOp = ops.length > 0 ? ops[ops.length - 1]! : -1;
        if (lastOp >= 0 && (lastOp & 3) === 2) texts[lastOp >> 2] += data;
        else {
          ops.push(texts.length * 4 + 2);
          texts.push(data);
        }
        if (!forSelection) return;
        // Non-space characters and commas, counted in one pass.
        // Read from the page itself where the text is a plain slice of it (no entity decoded): a slice's
        // characters cost an indirection each, the page's do not.
        let chars = 0;
        let commas = 0;
        const start = parser.startIndex - pieceStart;
        const end = parser.endIndex + 1 - pieceStart;
        const inPlace = start >= 0 && end - start === data.length;
        const source = inPlace ? piece : data;
        const to = inPlace ? end : data.length;
        for (let i = inPlace ? start : 0; i < to; i++) {
          const c = source.charCodeAt(i);
          if (c > 32) {
            chars++;
            if (c === 44 || c === 0xff0c || c === 0x3001 || c === 0x060c) commas++;
          }
        }
        if (chars === 0) return;
        const current = stack[stack.length - 1]!;
        tape.chars[current]! += chars;
        if (linkDepth > 0) tape.linkChars[current]! += chars;
        if (paragraphs.length > 0) {
          const p = paragraphs[paragraphs.length - 1]!;
          tape.ownChars[p]! += chars;
          tape.ownCommas[p]! += commas;
          if (linkDepth > 0) tape.ownLinkChars[p]! += chars;
        }
      },
      onclosetag(name) {
        links?.onclosetag(name);
        if (name === 'svg' || name === 'math') svgDepth = Math.max(0, svgDepth - 1);
        if (name === 'title' && titleDepth > 0) {
          titleDepth--;
          if (!head.title) head.title = titleText.replace(/\s+/g, ' ').trim();
          titleText = '';
        }
        if (name === 'script' && structured !== undefined) {
          head.structuredData.push(structured);
          structured = undefined;
        }
        const id = stack.pop();
        if (id === undefined) return;
        if (id < 0) {
          skipDepth--;
          return;
        }
        tape.closeAt[id] = ops.length;
        ops.push(id * 4 + 1);
        const kind = tape.kind[id]!;
        if (kind & PARAGRAPH) paragraphs.pop();
        if (name === 'a') linkDepth--;
        const parent = tape.parent[id]!;
        // A noscript fallback adds nothing to the text around it: the page as shown has it not.
        if (parent >= 0 && !(kind & FALLBACK)) {
          tape.chars[parent]! += tape.chars[id]!;
          tape.linkChars[parent]! += tape.linkChars[id]!;
          tape.blocks[parent]! += tape.blocks[id]! + (kind & BLOCK && !(kind & VOID) ? 1 : 0);
        }
      },
    },
    // The options the link collector's callbacks expect, which the tape's own reading shares.
    LINK_PARSER_OPTIONS,
  );
  // The piece being parsed, and where it starts in the page: a text read in place is read from it.
  let piece = '';
  let pieceStart = 0;
  for (const next of textPieces(html)) {
    pieceStart += piece.length;
    piece = next;
    parser.write(next);
  }
  parser.end();
  trimColumns(tape, tape.tag.length);
  return tape;
}

/**
 * The tape of a page, and the page it was recorded from: the page as it is,
 * or, when its elements nest deeper than the limit, the page with the tags
 * past the limit removed (`limitNesting`), recorded again. With `withLinks`,
 * the links read in the recording that was kept.
 */
export function recordPage(html: DocumentText, forSelection: boolean, withLinks = false): { tape: Tape; collector?: LinkCollector; source: DocumentText } {
  const record = (source: DocumentText, maxDepth?: number) => {
    const collector = withLinks ? createLinkCollector() : undefined;
    return { tape: recordTape(source, forSelection, collector, maxDepth), ...(collector ? { collector } : {}), source };
  };
  try {
    return record(html);
  } catch (err) {
    if (!(err instanceof NestingOverflow)) throw err;
    // The guard follows the parser's rules closely, not exactly: what it lets through is recorded without a second check.
    return record(limitNesting(wholeText(html)), Infinity);
  }
}

function collectMeta(head: HeadInfo, attribs: Record<string, string>): void {
  const key = (attribs.property ?? attribs.name ?? attribs.itemprop ?? attribs['http-equiv'] ?? '').trim().toLowerCase();
  const value = attribs.content;
  if (key && value !== undefined && value.trim() !== '') head.meta.push({ key, value: value.trim() });
}
