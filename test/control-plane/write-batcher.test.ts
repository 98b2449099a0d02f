import { expect } from 'chai';
import { createWriteBatcher } from '../../control-plane/jobs/write-batcher.js';

describe('the write batcher', () => {
  it('writes items added together in one batch, and those added meanwhile in the next', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = createWriteBatcher<number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
      },
      { maxBatch: 100 },
    );
    const first = [1, 2, 3].map((n) => batcher.add(n));
    await new Promise((r) => setImmediate(r));
    const second = [4, 5].map((n) => batcher.add(n));
    await new Promise((r) => setTimeout(r, 20));
    expect(batches).to.deep.equal([[1, 2, 3]]);
    release();
    await Promise.all([...first, ...second]);
    expect(batches).to.deep.equal([[1, 2, 3], [4, 5]]);
  });

  it('rejects every item of a batch whose write fails, and keeps writing later ones', async () => {
    let fail = true;
    const written: string[] = [];
    const batcher = createWriteBatcher<string>(
      async (items) => {
        if (fail) throw new Error('database gone');
        written.push(...items);
      },
      { maxBatch: 2 },
    );
    const results = await Promise.allSettled(['a', 'b'].map((x) => batcher.add(x)));
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    await Promise.all(['c', 'd', 'e'].map((x) => batcher.add(x)));
    await batcher.drain();
    expect(written).to.deep.equal(['c', 'd', 'e']);
  });
});
