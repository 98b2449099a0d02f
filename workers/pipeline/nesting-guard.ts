/**
 * Caps how deeply elements nest before any parser sees the page.
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

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen', 'basefont', 'bgsound', 'frame']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);
/** A start tag of the key closes an open element of these names on top of the stack (the usual implied end tags). */
const CLOSES_SIBLING: Record<string, readonly string[]> = {
  li: ['li'],
  dt: ['dt', 'dd'],
  dd: ['dt', 'dd'],
  p: ['p'],
  option: ['option'],
  optgroup: ['optgroup', 'option'],
  tr: ['tr', 'td', 'th'],
  td: ['td', 'th'],
  th: ['td', 'th'],
  thead: ['tbody', 'tfoot', 'tr', 'td', 'th'],
  tbody: ['thead', 'tbody', 'tfoot', 'tr', 'td', 'th'],
  tfoot: ['thead', 'tbody', 'tr', 'td', 'th'],
  rt: ['rt', 'rp'],
  rp: ['rt', 'rp'],
};
/** How far down the stack an end tag looks for its element before it is treated as stray. */
const END_TAG_SEARCH = 64;

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

/** End of a tag that starts at `from` (just after the name): the index after its `>`, honouring quoted attribute values. */
function tagEnd(html: string, from: number): number {
  let quote = 0;
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) {
      // A quote only opens a value right after `=` (possibly with spaces).
      let j = i - 1;
      while (j > from && (html.charCodeAt(j) === 32 || html.charCodeAt(j) === 9 || html.charCodeAt(j) === 10)) j--;
      if (html.charCodeAt(j) === 61) quote = c;
    } else if (c === GT) return i + 1;
  }
  return html.length;
}

const rawTextEnds = new Map<string, RegExp>();
function rawTextEnd(name: string): RegExp {
  let pattern = rawTextEnds.get(name);
  if (!pattern) rawTextEnds.set(name, (pattern = new RegExp(`</${name}[^>]*>`, 'gi')));
  return pattern;
}

export function limitNesting(html: string, maxDepth = MAX_NESTING_DEPTH): string {
  const stack: string[] = [];
  /** [start, end) ranges of tags to remove, in order. */
  const cut: number[] = [];
  /** Start tags removed for being too deep, by name, so their end tags go too. */
  const dropped = new Map<string, number>();
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length - 1) {
    const next = html.charCodeAt(i + 1);
    if (next === BANG || next === QUESTION) {
      // Comment, doctype, CDATA or processing instruction.
      const close = html.startsWith('<!--', i) ? html.indexOf('-->', i + 4) : html.indexOf('>', i + 2);
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
      let found = -1;
      for (let k = stack.length - 1; k >= 0 && k >= stack.length - END_TAG_SEARCH; k--) {
        if (stack[k] === name) {
          found = k;
          break;
        }
      }
      if (found >= 0) stack.length = found;
      else {
        const n = dropped.get(name) ?? 0;
        if (n > 0) {
          dropped.set(name, n - 1);
          cut.push(i, end);
        }
      }
      i = html.indexOf('<', end);
      continue;
    }

    const selfClosing = html.charCodeAt(end - 2) === SLASH;
    if (!VOID.has(name) && !selfClosing) {
      const closes = CLOSES_SIBLING[name];
      if (closes) while (stack.length > 0 && closes.includes(stack[stack.length - 1]!)) stack.pop();
      if (RAW_TEXT.has(name)) {
        // Its content is text; skip to the matching end tag.
        const pattern = rawTextEnd(name);
        pattern.lastIndex = end;
        const close = pattern.exec(html);
        i = close ? html.indexOf('<', close.index + close[0].length) : -1;
        continue;
      }
      if (stack.length >= maxDepth) {
        dropped.set(name, (dropped.get(name) ?? 0) + 1);
        cut.push(i, end);
      } else {
        stack.push(name);
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
