import { expect } from 'chai';
import { pointerPath, type Point } from '../../../workers/fetching/pointer-path.js';

/** A seeded source of numbers in [0, 1), so each case is the same every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** How far `p` lies from the straight line through `a` and `b`. */
const offLine = (p: Point, a: Point, b: Point) => Math.abs((b.x - a.x) * (a.y - p.y) - (a.x - p.x) * (b.y - a.y)) / Math.hypot(b.x - a.x, b.y - a.y);
const step = (a: Point, b: Point) => Math.hypot(b.x - a.x, b.y - a.y);

describe('a person\'s pointer path', () => {
  const from = { x: 200, y: 150 };
  const to = { x: 1100, y: 620 };

  for (const seed of [1, 7, 42, 1234, 99_999]) {
    it(`ends where it was sent, in whole pixels, one point a frame (seed ${seed})`, () => {
      const path = pointerPath(from, to, 12, seeded(seed));
      expect(path).to.have.length(12);
      expect(path.at(-1)).to.deep.equal(to);
      for (const p of path) expect(Number.isInteger(p.x) && Number.isInteger(p.y)).to.equal(true);
    });

    it(`bows off the straight line rather than following it (seed ${seed})`, () => {
      const path = pointerPath(from, to, 12, seeded(seed));
      const furthest = Math.max(...path.map((p) => offLine(p, from, to)));
      // At least 5 % of the move's length (1,015 px here) to one side.
      expect(furthest).to.be.greaterThan(50);
      // All to one side: a swing, not a zigzag.
      const sides = new Set(path.slice(0, -1).map((p) => Math.sign((to.x - from.x) * (p.y - from.y) - (to.y - from.y) * (p.x - from.x))).filter((s) => s !== 0));
      expect(sides.size).to.equal(1);
    });

    it(`starts and ends slowly and is fastest in the middle (seed ${seed})`, () => {
      const path = [from, ...pointerPath(from, to, 12, seeded(seed))];
      const steps = path.slice(1).map((p, i) => step(path[i]!, p));
      const middle = Math.max(...steps.slice(4, 8));
      expect(steps[0]).to.be.lessThan(middle / 2);
      expect(steps.at(-1)).to.be.lessThan(middle / 2);
    });
  }

  it('differs from one move to the next', () => {
    const a = pointerPath(from, to, 12, seeded(3));
    const b = pointerPath(from, to, 12, seeded(4));
    expect(a).to.not.deep.equal(b);
  });
});
