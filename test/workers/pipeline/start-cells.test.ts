import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { markStarted, startedAt, StartCells } from '../../../workers/pipeline/start-cells.js';

describe('pipeline/start cells', () => {
  it('hands out a distinct cell to each document in flight, reading 0 until marked, and reuses released ones cleared', () => {
    const cells = new StartCells();
    const held = Array.from({ length: 2_500 }, () => cells.take());
    const blocks = [...new Set(held.map((c) => c.cells))];
    expect(new Set(held.map((c) => `${blocks.indexOf(c.cells)}:${c.index}`)).size).to.equal(2_500);
    expect(held.every((c) => startedAt(c) === 0)).to.equal(true);
    markStarted(held[7]!);
    expect(startedAt(held[7]!)).to.be.closeTo(Date.now(), 1_000);
    expect(startedAt(held[8]!)).to.equal(0);
    cells.release(held[7]!);
    const again = cells.take();
    expect(again.cells).to.equal(held[7]!.cells);
    expect(again.index).to.equal(held[7]!.index);
    expect(startedAt(again)).to.equal(0);
  });

  it('sees the mark a thread writes in the cell it was sent', async () => {
    const cells = new StartCells();
    const cell = cells.take();
    const worker = new Worker('require("node:worker_threads").parentPort.once("message", (c) => { c.cells[c.index] = 12345; process.exit(0); });', { eval: true });
    worker.postMessage(cell);
    await new Promise((resolve) => worker.once('exit', resolve));
    expect(startedAt(cell)).to.equal(12345);
  });
});
