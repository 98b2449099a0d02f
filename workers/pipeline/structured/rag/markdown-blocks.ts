/** Block structure of a Markdown document, with character offsets into it. */
export type BlockKind = 'heading' | 'paragraph' | 'code' | 'table' | 'list' | 'quote' | 'rule';

export interface MarkdownBlock {
  kind: BlockKind;
  start: number;
  /** Exclusive; trailing newline not included. */
  end: number;
  /** Heading level 1–6. */
  level?: number;
  /** Heading text without the markers. */
  text?: string;
  /** List item start offsets; code and table line start offsets (first entry: the fence or header line). */
  parts?: number[];
  /** Fence line of a code block, e.g. "```ts". */
  fence?: string;
}

interface Line {
  start: number;
  end: number;
  text: string;
}

function splitLines(source: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= source.length) {
    const nl = source.indexOf('\n', start);
    const end = nl === -1 ? source.length : nl;
    const text = source.slice(start, end).replace(/\r$/, '');
    lines.push({ start, end: start + text.length, text });
    if (nl === -1) break;
    start = nl + 1;
  }
  return lines;
}

// The fence's run is taken whole (a lookahead is atomic): given back a character at a time, a long run was read again
// from each length when the line did not match.
const FENCE = /^ {0,3}(?=(`{3,}|~{3,}))\1(.*)$/;
// The heading's text does not end in a blank: the closing run is tried only where the text's last blank run begins,
// not from each blank of a long run (which read the run to its end from every blank).
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(?![ \t])(.*?))?(?<![ \t])(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const QUOTE = /^ {0,3}>/;
// Blanks after the last cell belong to the cell unless a closing `|` comes first: read by either, a long run of them
// was tried every way before a line that is no delimiter failed.
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?$/;

const blank = (l: Line | undefined): boolean => l === undefined || l.text.trim() === '';

function startsBlock(lines: Line[], i: number): boolean {
  const t = lines[i]!.text;
  return FENCE.test(t) || ATX.test(t) || QUOTE.test(t) || LIST_ITEM.test(t) || RULE.test(t) || isTableStart(lines, i);
}

function isTableStart(lines: Line[], i: number): boolean {
  const next = lines[i + 1];
  return lines[i]!.text.includes('|') && next !== undefined && next.text.includes('-') && TABLE_DELIMITER.test(next.text);
}

/**
 * Splits Markdown into blocks: ATX and setext headings, fenced code, pipe
 * tables, lists (with item offsets), block quotes, thematic breaks and
 * paragraphs. Enough of CommonMark to cut at block boundaries.
 */
export function parseMarkdownBlocks(source: string): MarkdownBlock[] {
  const lines = splitLines(source);
  const blocks: MarkdownBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line.text);
    if (fence) {
      const marker = fence[1]!;
      const parts = [line.start];
      let j = i + 1;
      while (j < lines.length) {
        const close = lines[j]!.text.trim();
        if (close.startsWith(marker[0]!.repeat(marker.length)) && /^(`+|~+)$/.test(close)) break;
        parts.push(lines[j]!.start);
        j++;
      }
      const last = Math.min(j, lines.length - 1);
      blocks.push({ kind: 'code', start: line.start, end: lines[last]!.end, parts, fence: line.text.trim() });
      i = last + 1;
      continue;
    }
    const atx = ATX.exec(line.text);
    if (atx) {
      blocks.push({ kind: 'heading', start: line.start, end: line.end, level: atx[1]!.length, text: (atx[2] ?? '').trim() });
      i++;
      continue;
    }
    if (RULE.test(line.text)) {
      blocks.push({ kind: 'rule', start: line.start, end: line.end });
      i++;
      continue;
    }
    if (isTableStart(lines, i)) {
      const parts = [line.start];
      let j = i + 1;
      while (j < lines.length && !blank(lines[j]) && lines[j]!.text.includes('|')) {
        parts.push(lines[j]!.start);
        j++;
      }
      blocks.push({ kind: 'table', start: line.start, end: lines[j - 1]!.end, parts });
      i = j;
      continue;
    }
    if (QUOTE.test(line.text)) {
      let j = i;
      while (j < lines.length && !blank(lines[j]) && (QUOTE.test(lines[j]!.text) || !startsBlock(lines, j))) j++;
      blocks.push({ kind: 'quote', start: line.start, end: lines[j - 1]!.end });
      i = j;
      continue;
    }
    const item = LIST_ITEM.exec(line.text);
    if (item) {
      const parts = [line.start];
      let j = i + 1;
      let end = line.end;
      while (j < lines.length) {
        const l = lines[j]!;
        if (blank(l)) {
          // A blank line ends the list unless an item or indented continuation follows.
          const next = lines[j + 1];
          if (next && !blank(next) && (LIST_ITEM.test(next.text) || /^\s{2,}/.test(next.text))) {
            j++;
            continue;
          }
          break;
        }
        const m = LIST_ITEM.exec(l.text);
        if (m && m[1]!.length <= item[1]!.length) parts.push(l.start);
        else if (!m && !/^\s/.test(l.text) && startsBlock(lines, j)) break;
        end = l.end;
        j++;
      }
      blocks.push({ kind: 'list', start: line.start, end, parts });
      i = j;
      continue;
    }
    let j = i + 1;
    while (j < lines.length && !blank(lines[j]) && !SETEXT.test(lines[j]!.text) && !startsBlock(lines, j)) j++;
    const setext = j < lines.length && SETEXT.exec(lines[j]!.text);
    if (setext && !blank(lines[j])) {
      const text = source.slice(line.start, lines[j - 1]!.end).replace(/\s+/g, ' ').trim();
      blocks.push({ kind: 'heading', start: line.start, end: lines[j]!.end, level: setext[1]![0] === '=' ? 1 : 2, text });
      i = j + 1;
      continue;
    }
    blocks.push({ kind: 'paragraph', start: line.start, end: lines[j - 1]!.end });
    i = j;
  }
  return blocks;
}
