import { expect } from 'chai';
import { createSlots } from '../../../workers/crawl/slots.js';

describe('crawl/slots', () => {
  it('runs at most `size` tasks at once, the others in arrival order, and frees a slot when a task fails', async () => {
    const slots = createSlots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number, fail = false) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
        order.push(n);
        if (fail) throw new Error(`task ${n} failed`);
        return n;
      });
    const results = await Promise.allSettled([task(1, true), task(2), task(3), task(4), task(5)]);
    expect(most).to.equal(2);
    expect(results[0]!.status).to.equal('rejected');
    expect(results.slice(1).map((r) => (r as PromiseFulfilledResult<number>).value)).to.deep.equal([2, 3, 4, 5]);
    expect(order.slice(0, 2).sort()).to.deep.equal([1, 2]);
  });
});
