import { expect } from 'chai';
import { contentDiff, fieldChanges } from '../../../control-plane/crawl/change-diff.js';

describe('change diffs', () => {
  it('writes a unified diff of two contents with context lines and hunk headers', () => {
    const previous = ['# Title', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].join('\n');
    const current = ['# Title', 'one', 'two', 'three', 'FOUR', 'five', 'six', 'seven', 'eight', 'nine'].join('\n');
    expect(contentDiff(previous, current)).to.equal(
      ['--- previous', '+++ current', '@@ -2,8 +2,9 @@', ' one', ' two', ' three', '-four', '+FOUR', ' five', ' six', ' seven', ' eight', '+nine', ''].join('\n'),
    );
  });

  it('answers an empty diff for equal contents', () => {
    expect(contentDiff('same\ntext', 'same\ntext')).to.equal('');
  });

  it('lists added, removed and modified fields by dotted path, comparing arrays whole', () => {
    const previous = { name: 'Lamp', price: { amount: 10, currency: 'EUR' }, tags: ['a', 'b'], colour: 'red' };
    const current = { name: 'Lamp', price: { amount: 12, currency: 'EUR' }, tags: ['a', 'c'], stock: 3 };
    expect(fieldChanges(previous, current)).to.deep.equal([
      { field: 'price.amount', old: 10, new: 12, change: 'modified' },
      { field: 'tags', old: ['a', 'b'], new: ['a', 'c'], change: 'modified' },
      { field: 'colour', old: 'red', new: null, change: 'removed' },
      { field: 'stock', old: null, new: 3, change: 'added' },
    ]);
  });

  it('finds no change between fields equal up to key order', () => {
    expect(fieldChanges({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })).to.deep.equal([]);
  });
});
