import { expect } from 'chai';
import { BALANCE_TIERS } from '../../../common/balance-tiers.js';
import { nextTierOf } from '../../../control-plane/accounts/current-user.js';

const USD = 1_000_000;

describe('the next tier in the current-user record', () => {
  it('names the tier above and the balance still missing', () => {
    expect(nextTierOf(1 * USD, false)).to.deep.equal({ tier: BALANCE_TIERS[1], balanceNeededMicrocents: 4 * USD });
    expect(nextTierOf(5 * USD, false)?.tier.id).to.equal('growth');
    expect(nextTierOf(199 * USD, false)).to.deep.equal({ tier: BALANCE_TIERS[3], balanceNeededMicrocents: 1 * USD });
  });

  it('is null at the highest tier and for enterprise accounts', () => {
    expect(nextTierOf(500 * USD, false)).to.equal(null);
    expect(nextTierOf(0, true)).to.equal(null);
  });
});
