import type { Tape } from './html-tape.js';

export type TableRows = { cells: string[]; header: boolean }[];

const LONG_CELL_CHARS = 400;
const BLOCKS_PER_CELL = 3;

/**
 * Whether a table holds data (rendered as a pipe table) or only lays out the
 * page (its cells rendered as ordinary blocks). Pages from before CSS put
 * whole articles in table cells; a pipe table of paragraphs would be
 * unreadable. Decided from the recorded subtree, before any of it is written.
 */
export function isDataTable(tape: Tape, id: number): boolean {
  const role = tape.attrs[id]!.role;
  if (role === 'presentation' || role === 'none') return false;
  const { ops, tag, texts } = tape;
  let rows = 0;
  let columns = 0;
  let cellsInRow = 0;
  let hasHeader = false;
  let cellEnd = -1;
  let cellChars = 0;
  for (let i = tape.openAt[id]! + 1; i < tape.closeAt[id]!; i++) {
    const op = ops[i]!;
    if ((op & 3) === 2) {
      if (i < cellEnd && (cellChars += texts[op >> 2]!.trim().length) > LONG_CELL_CHARS) return false;
      continue;
    }
    if ((op & 3) !== 0) continue;
    const node = op >> 2;
    switch (tag[node]) {
      case 'table':
        return false;
      case 'tr':
        rows++;
        cellsInRow = 0;
        break;
      case 'caption':
      case 'thead':
        hasHeader = true;
        break;
      case 'th':
      case 'td':
        if (tag[node] === 'th') hasHeader = true;
        cellsInRow++;
        if (cellsInRow > columns) columns = cellsInRow;
        if (tape.blocks[node]! > BLOCKS_PER_CELL) return false;
        cellEnd = tape.closeAt[node]!;
        cellChars = 0;
        break;
    }
  }
  if (columns === 0) return false;
  if (hasHeader) return true;
  return rows > 1 && columns > 1;
}

/** GFM pipe-table lines, the first row serving as header when the table has none; tab-separated lines when plain. */
export function renderTable(rows: TableRows, plain: boolean): string[] {
  const kept = rows.filter((row) => row.cells.some((cell) => cell.length > 0));
  if (kept.length === 0) return [];
  if (plain) return kept.map((row) => row.cells.join('\t').trim());
  let width = 0;
  for (const row of kept) if (row.cells.length > width) width = row.cells.length;
  const line = (cells: string[]): string => {
    let out = '|';
    for (let i = 0; i < width; i++) out += ` ${(cells[i] ?? '').replace(/\|/g, '\\|')} |`;
    return out;
  };
  const lines = [line(kept[0]!.cells), `|${' --- |'.repeat(width)}`];
  for (let i = 1; i < kept.length; i++) lines.push(line(kept[i]!.cells));
  return lines;
}
