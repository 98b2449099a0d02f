/**
 * Where a pipeline thread writes the time it began on a document, for the
 * pool to start that document's budget from. One cell of shared memory per
 * document in flight: a message per document would cost a channel, its
 * transfer and a wake-up of the event loop on every page, where a written
 * number costs nothing and is read only when a budget timer fires.
 */
export interface StartCell {
  cells: Float64Array;
  index: number;
}

/** Cells per shared block; more blocks are added when more documents are in flight. */
const BLOCK_CELLS = 1_024;

export class StartCells {
  private readonly blocks: Float64Array[] = [];
  private readonly free: number[] = [];

  /** A cell reading 0 (not begun), held until `release`. */
  take(): StartCell {
    if (this.free.length === 0) {
      const base = this.blocks.length * BLOCK_CELLS;
      this.blocks.push(new Float64Array(new SharedArrayBuffer(BLOCK_CELLS * Float64Array.BYTES_PER_ELEMENT)));
      for (let i = BLOCK_CELLS - 1; i >= 0; i--) this.free.push(base + i);
    }
    const slot = this.free.pop()!;
    const cell = { cells: this.blocks[Math.floor(slot / BLOCK_CELLS)]!, index: slot % BLOCK_CELLS };
    cell.cells[cell.index] = 0;
    return cell;
  }

  release(cell: StartCell): void {
    this.free.push(this.blocks.indexOf(cell.cells) * BLOCK_CELLS + cell.index);
  }
}

/** Epoch ms at which the thread began on the document, or 0 while it waits for one. */
export function startedAt(cell: StartCell): number {
  return cell.cells[cell.index]!;
}

/** Run by the thread as it begins. An aligned 8-byte store is read whole on the platforms Node runs on. */
export function markStarted(cell: StartCell): void {
  cell.cells[cell.index] = Date.now();
}
