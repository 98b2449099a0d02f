/**
 * Caps how deeply elements nest, for pages a parse found nested past the
 * limit (`NestingOverflow`, thrown by the tape recorder): a page is parsed as
 * it is first, and only such a page is passed through this scan and parsed
 * again.
 *
 * htmlparser2 keeps its open-element stack with `unshift`, so each level costs
 * time proportional to the depth: a 5 MB run of unclosed `<div>`s would hold a
 * worker for minutes, and the recursive readers downstream would exhaust the
 * stack. Browsers cap parser depth too (Blink at 512). This pass scans tags
 * linearly, tracks an approximate open-element stack (void elements,
 * self-closing tags and the common implied end tags are understood; comments,
 * scripts, styles and other raw-text elements are skipped), and removes the
 * start and end tags of elements that would sit deeper than `maxDepth`, so
 * their text stays in place under the deepest kept element. Pages within the
 * limit come back unchanged (the same string).
 */
export const MAX_NESTING_DEPTH = 512;

/**
 * Thrown by a parse that finds its elements nested deeper than
 * MAX_NESTING_DEPTH, to be tried again on `limitNesting` of the page: nearly
 * every page stays well within the limit, so it is parsed as it is and the
 * guard's own scan runs only for the few that do not.
 */
export class NestingOverflow extends Error {
  constructor() {
    super(`elements nest deeper than ${MAX_NESTING_DEPTH}`);
  }
}

// The rules below are htmlparser2's own (the parser every converter here uses), so the guard's stack
// matches the parser's: its void elements, its raw-text elements, and the start tags that close open ones.
const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp']);
/** Inside these, `<x/>` closes itself; elsewhere it opens `x` like `<x>`. */
const FOREIGN = new Set(['svg', 'math']);
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
/** A start tag of the key closes open elements of these names while they are on top of the stack. */
const CLOSES_SIBLING: Record<string, readonly string[]> = {
  tr: ['tr', 'th', 'td'],
  th: ['th'],
  td: ['thead', 'th', 'td'],
  body: ['head', 'link', 'script'],
  li: ['li'],
  select: FORM, input: FORM, output: FORM, button: FORM, datalist: FORM, textarea: FORM,
  option: ['option'],
  optgroup: ['optgroup', 'option'],
  dd: ['dd', 'dt'],
  dt: ['dd', 'dt'],
  rt: ['rt', 'rp'],
  rp: ['rt', 'rp'],
  tbody: ['thead', 'tbody'],
  tfoot: ['thead', 'tbody'],
  ...Object.fromEntries(
    ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset',
      'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((t) => [t, P]),
  ),
};

const GT = 62; // >
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isNameChar(c: number): boolean {
  return !(c === 32 || c === 9 || c === 10 || c === 12 || c === 13 || c === SLASH || c === GT || Number.isNaN(c));
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
}

/** End of a tag that starts at `from` (just after the name): the index after its `>`, honouring quoted attribute values. */
function tagEnd(html: string, from: number): number {
  let quote = 0;
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) {
      // A quote opens a value only after `=` that follows an attribute name (not the tag name, not another `=`).
      let j = i - 1;
      while (j >= from && isBlank(html.charCodeAt(j))) j--;
      if (j >= from && html.charCodeAt(j) === 61) {
        let k = j - 1;
        while (k >= from && isBlank(html.charCodeAt(k))) k--;
        if (k >= from && html.charCodeAt(k) !== 61) quote = c;
      }
    } else if (c === GT) return i + 1;
  }
  return html.length;
}

const rawTextEnds = new Map<string, RegExp>();
/**
 * Where the raw text of `name` ends: its first end tag from `from` on, up to
 * the first `>` after it; -1 when there is none. The end tag's name is found
 * first and its `>` looked for after: a pattern reading `</name[^>]*>` read
 * to the page's end from every `</name` on a page with no `>` after them,
 * quadratic in the page. When the first end tag has no `>` after it, no later
 * one has either.
 */
function rawTextEnd(html: string, name: string, from: number): number {
  let pattern = rawTextEnds.get(name);
  if (!pattern) rawTextEnds.set(name, (pattern = new RegExp(`</${name}`, 'gi')));
  pattern.lastIndex = from;
  const close = pattern.exec(html);
  if (!close) return -1;
  const gt = html.indexOf('>', close.index + close[0].length);
  return gt < 0 ? -1 : gt + 1;
}

export function limitNesting(html: string, maxDepth = MAX_NESTING_DEPTH): string {
  const stack: string[] = [];
  /** How many of each name are on the stack, so a stray end tag costs nothing to recognise. */
  const onStack = new Map<string, number>();
  let foreign = 0;
  const push = (name: string) => {
    stack.push(name);
    onStack.set(name, (onStack.get(name) ?? 0) + 1);
    if (FOREIGN.has(name)) foreign++;
  };
  const pop = () => {
    const name = stack.pop()!;
    onStack.set(name, onStack.get(name)! - 1);
    if (FOREIGN.has(name)) foreign--;
  };
  /** [start, end) ranges of tags to remove, in order. */
  const cut: number[] = [];
  /** Start tags removed for being too deep, by name, so their end tags go too. */
  const dropped = new Map<string, number>();
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length - 1) {
    const next = html.charCodeAt(i + 1);
    if (next === BANG || next === QUESTION) {
      // Comment (`<!-->` and `<!--->` end at once, as in the parser), doctype, CDATA or processing instruction.
      let close: number;
      if (html.startsWith('<!-->', i)) close = i + 4;
      else if (html.startsWith('<!--->', i)) close = i + 5;
      else if (html.startsWith('<!--', i)) {
        const end = html.indexOf('-->', i + 4);
        close = end === -1 ? -1 : end + 2;
      } else close = html.indexOf('>', i + 2);
      if (close === -1) break;
      i = html.indexOf('<', close + 1);
      continue;
    }
    const closing = next === SLASH;
    const nameStart = closing ? i + 2 : i + 1;
    if (!isNameStart(html.charCodeAt(nameStart))) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    let nameEnd = nameStart + 1;
    while (nameEnd < html.length && isNameChar(html.charCodeAt(nameEnd))) nameEnd++;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    const end = tagEnd(html, nameEnd);

    if (closing) {
      if ((onStack.get(name) ?? 0) > 0) {
        while (stack[stack.length - 1] !== name) pop();
        pop();
      } else {
        const n = dropped.get(name) ?? 0;
        if (n > 0) {
          dropped.set(name, n - 1);
          cut.push(i, end);
        }
      }
      i = html.indexOf('<', end);
      continue;
    }

    const closes = CLOSES_SIBLING[name];
    if (closes) while (stack.length > 0 && closes.includes(stack[stack.length - 1]!)) pop();
    // `<x/>` opens `x` in HTML (only void elements have no content); it closes itself only inside SVG or MathML.
    const selfClosing = foreign > 0 && html.charCodeAt(end - 2) === SLASH;
    if (!VOID.has(name) && !selfClosing) {
      if (RAW_TEXT.has(name)) {
        // Its content is text up to the matching end tag (or the end of the page).
        const closed = rawTextEnd(html, name, end);
        i = closed < 0 ? -1 : html.indexOf('<', closed);
        continue;
      }
      if (stack.length >= maxDepth) {
        dropped.set(name, (dropped.get(name) ?? 0) + 1);
        cut.push(i, end);
      } else {
        push(name);
      }
    }
    i = html.indexOf('<', end);
  }
  if (cut.length === 0) return html;
  const parts: string[] = [];
  let from = 0;
  for (let k = 0; k < cut.length; k += 2) {
    parts.push(html.slice(from, cut[k]));
    from = cut[k + 1]!;
  }
  parts.push(html.slice(from));
  return parts.join('');
}

/** Block-quote levels and indentation columns kept at the start of a Markdown line. */
export const MAX_MARKDOWN_QUOTE_DEPTH = 32;
export const MAX_MARKDOWN_INDENT = 64;

/**
 * The Markdown counterpart: marked's list and block-quote parsing grows much
 * faster than the input as nesting deepens (a few thousand nested list levels
 * take minutes and gigabytes). Outside fenced code, a line's leading run of
 * `>` markers is cut to 32 and its indentation to 64 columns, which keeps every
 * real document as it is and turns the rest into siblings at the deepest kept
 * level. Documents within the limits come back unchanged (the same string).
 */
export function limitMarkdownNesting(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: string | null = null;
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const open = /^[\s>]*(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (open && open[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (open) {
      fence = open[1]!;
      continue;
    }
    let i = 0;
    let quotes = 0;
    let column = 0;
    let out = '';
    let clipped = false;
    while (i < line.length) {
      const c = line[i]!;
      if (c === '>') {
        if (quotes < MAX_MARKDOWN_QUOTE_DEPTH) out += c;
        else clipped = true;
        quotes++;
        column = 0;
      } else if (c === ' ' || c === '\t') {
        const width = c === '\t' ? 4 - (column % 4) : 1;
        if (column + width <= MAX_MARKDOWN_INDENT) out += c;
        else clipped = true;
        column += width;
      } else break;
      i++;
    }
    if (clipped) {
      lines[n] = out + line.slice(i);
      changed = true;
    }
  }
  return changed ? lines.join('\n') : markdown;
}
