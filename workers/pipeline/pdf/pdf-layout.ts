/**
 * Turns the positioned text runs of a PDF page into blocks a reader would
 * recognise: headings (by font size against the body size), paragraphs
 * (lines of one size that follow each other closely) and tables (consecutive
 * lines split into the same number of aligned cells). Pure functions over
 * plain data, so they are tested without a PDF.
 */
import { documentHtml, escapeHtml, joinLines } from '../document-html.js';

/** One run of text as the PDF places it: baseline origin, font size and advance width in page units. */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  size: number;
  width: number;
  /** The run ends its line. */
  eol: boolean;
}

export interface Line {
  cells: { text: string; x: number }[];
  y: number;
  size: number;
  page: number;
}

export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'table'; rows: string[][] };

/** A gap this many font sizes wide between two runs of a line separates table cells, not words. */
const CELL_GAP_EM = 0.8;
/** Lines at least this much larger than the body text are headings. */
const HEADING_RATIO = 1.15;
/** A vertical step up to this many line heights keeps a paragraph going. */
const PARAGRAPH_GAP_LINES = 1.6;
/** Distinct heading sizes beyond this share the lowest level. */
const MAX_HEADING_LEVEL = 4;

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Groups one page's runs into lines, each split into cells at wide gaps. */
export function linesOfPage(runs: readonly TextRun[], page: number): Line[] {
  const lines: Line[] = [];
  let current: TextRun[] = [];
  const flush = () => {
    const visible = current.filter((r) => r.text.trim() !== '');
    current = [];
    if (visible.length === 0) return;
    const cells: { text: string; x: number; end: number }[] = [];
    for (const run of visible) {
      const last = cells[cells.length - 1];
      if (last && run.x - last.end < CELL_GAP_EM * run.size) {
        // A run that starts right after the previous one continues its word or sentence.
        const joiner = run.x - last.end > run.size * 0.15 && !/\s$/.test(last.text) && !/^\s/.test(run.text) ? ' ' : '';
        last.text += joiner + run.text;
        last.end = Math.max(last.end, run.x + run.width);
      } else {
        cells.push({ text: run.text, x: run.x, end: run.x + run.width });
      }
    }
    const size = Math.max(...visible.map((r) => r.size));
    lines.push({ cells: cells.map((c) => ({ text: collapse(c.text), x: c.x })).filter((c) => c.text !== ''), y: visible[0]!.y, size, page });
  };
  for (const run of runs) {
    const prev = current[current.length - 1];
    // A run on another baseline starts a new line even without an end-of-line mark.
    if (prev && run.text.trim() !== '' && Math.abs(run.y - prev.y) > Math.max(run.size, prev.size) * 0.5) flush();
    current.push(run);
    if (run.eol) flush();
  }
  flush();
  return lines.filter((l) => l.cells.length > 0);
}

/** The size most of the text is set in, weighted by characters. */
export function bodySize(lines: readonly Line[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) {
    const key = Math.round(line.size * 2) / 2;
    chars.set(key, (chars.get(key) ?? 0) + line.cells.reduce((n, c) => n + c.text.length, 0));
  }
  let best = 0;
  let bestChars = -1;
  for (const [size, n] of chars) {
    if (n > bestChars) [best, bestChars] = [size, n];
  }
  return best || 12;
}

/** Lines at the top and at the bottom of a page that may be running heads or footers. */
const PAGE_EDGE_LINES = 2;

/**
 * Running heads and footers (short lines at the top or bottom of most pages,
 * at the same height, the same apart from their numbers, and no larger than
 * the body text, which tells them from chapter titles that open every page)
 * and lines that are only a page number: furniture of the printed page.
 */
export function withoutPageFurniture(lines: readonly Line[], pageCount: number): Line[] {
  const pageNumber = /^(page\s*)?\d{1,4}(\s*(of|\/)\s*\d{1,4})?$/i;
  const edge = new Set<Line>();
  const byPage = new Map<number, Line[]>();
  for (const line of lines) {
    let list = byPage.get(line.page);
    if (!list) byPage.set(line.page, (list = []));
    list.push(line);
  }
  for (const list of byPage.values()) {
    for (const line of [...list.slice(0, PAGE_EDGE_LINES), ...list.slice(-PAGE_EDGE_LINES)]) edge.add(line);
  }
  const text = (l: Line) => l.cells.map((c) => c.text).join(' ');
  const key = (l: Line) => `${Math.round(l.y / 3)}|${text(l).replace(/\d+/g, '#')}`;
  const body = bodySize(lines);
  const pagesWith = new Map<string, Set<number>>();
  for (const line of edge) {
    if (text(line).length > 100 || line.size > body * 1.05) continue;
    let seen = pagesWith.get(key(line));
    if (!seen) pagesWith.set(key(line), (seen = new Set()));
    seen.add(line.page);
  }
  const repeatedOn = Math.max(3, pageCount / 2);
  return lines.filter((l) => {
    if (!edge.has(l)) return true;
    if (pageNumber.test(text(l))) return false;
    return pageCount < 3 || (pagesWith.get(key(l))?.size ?? 0) < repeatedOn;
  });
}

function sameColumns(a: Line, b: Line, tolerance: number): boolean {
  return a.cells.length === b.cells.length && a.cells.every((c, i) => Math.abs(c.x - b.cells[i]!.x) <= tolerance);
}

/** The blocks of a document's lines, in reading order. */
export function blocksOf(lines: readonly Line[]): Block[] {
  const body = bodySize(lines);
  const headingSizes = [...new Set(lines.filter((l) => l.size >= body * HEADING_RATIO).map((l) => Math.round(l.size * 2) / 2))].sort((a, b) => b - a);
  const levelOf = (size: number) => Math.min(MAX_HEADING_LEVEL, headingSizes.indexOf(Math.round(size * 2) / 2) + 1);

  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    // Tables: two or more consecutive lines of two or more cells in the same columns.
    if (line.cells.length >= 2) {
      let j = i + 1;
      while (j < lines.length && lines[j]!.page === line.page && sameColumns(line, lines[j]!, line.size)) j++;
      if (j - i >= 2) {
        blocks.push({ kind: 'table', rows: lines.slice(i, j).map((l) => l.cells.map((c) => c.text)) });
        i = j;
        continue;
      }
    }
    const text = line.cells.map((c) => c.text).join(' ');
    if (line.size >= body * HEADING_RATIO && text.length <= 200) {
      // A heading set over two lines stays one heading.
      const parts = [text];
      let j = i + 1;
      while (j < lines.length && lines[j]!.size === line.size && lines[j]!.page === line.page && Math.abs(line.y - lines[j]!.y) <= line.size * 1.6 * (j - i)) {
        parts.push(lines[j]!.cells.map((c) => c.text).join(' '));
        j++;
      }
      blocks.push({ kind: 'heading', level: levelOf(line.size), text: joinLines(parts) });
      i = j;
      continue;
    }
    const parts = [text];
    let j = i + 1;
    while (j < lines.length) {
      const next = lines[j]!;
      const prev = lines[j - 1]!;
      if (next.page !== prev.page || Math.abs(next.size - line.size) > 0.5 || next.cells.length >= 2) break;
      if (Math.abs(prev.y - next.y) > prev.size * PARAGRAPH_GAP_LINES) break;
      parts.push(next.cells.map((c) => c.text).join(' '));
      j++;
    }
    blocks.push({ kind: 'paragraph', text: joinLines(parts) });
    i = j;
  }
  return blocks;
}

/** The blocks as an HTML document, which the content pipeline turns into every output format. */
export function blocksToHtml(blocks: readonly Block[], title: string): string {
  const row = (cells: readonly string[], tag: string) => `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return documentHtml(
    title,
    blocks.map((block) => {
      if (block.kind === 'heading') return `<h${block.level}>${escapeHtml(block.text)}</h${block.level}>`;
      if (block.kind === 'paragraph') return `<p>${escapeHtml(block.text)}</p>`;
      const [head, ...rows] = block.rows;
      return `<table><thead>${row(head!, 'th')}</thead><tbody>${rows.map((r) => row(r, 'td')).join('')}</tbody></table>`;
    }),
  );
}
