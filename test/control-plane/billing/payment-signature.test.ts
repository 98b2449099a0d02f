import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import Stripe from 'stripe';
import { TrawlError } from '../../../common/errors.js';
import { verifyPaymentSignature } from '../../../control-plane/billing/payment-signature.js';

const SECRET = 'whsec_test_secret_for_signatures';
const stripe = new Stripe('sk_test_unused');
const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed', data: { object: { id: 'cs_1' } } });
const now = () => Math.floor(Date.now() / 1000);

/** Why our check refused a header, or 'accepted'. */
function ours(body: string, header: string, secret = SECRET): string {
  try {
    verifyPaymentSignature(Buffer.from(body), header, secret);
    return 'accepted';
  } catch (err) {
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('INVALID_SIGNATURE');
    return String((err as TrawlError).details?.['reason']);
  }
}

/** Whether the Stripe library's own check accepts a header (300 s tolerance, like ours). */
function stripeAccepts(body: string, header: string, secret = SECRET): boolean {
  try {
    stripe.webhooks.constructEvent(body, header, secret, 300);
    return true;
  } catch {
    return false;
  }
}

describe('payment webhook signatures (Stripe-Signature), checked against the Stripe library', () => {
  it("accepts a header made by the Stripe library's generator, as the library does", () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    expect(stripeAccepts(payload, header)).to.equal(true);
    expect(ours(payload, header)).to.equal('accepted');
  });

  it('accepts the HMAC-SHA256 of "<t>.<body>" computed here, which the Stripe library accepts too', () => {
    const t = now();
    const header = `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${payload}`).digest('hex')}`;
    expect(stripeAccepts(payload, header)).to.equal(true);
    expect(ours(payload, header)).to.equal('accepted');
  });

  it('accepts a header carrying several v1 signatures when one matches (a secret being rolled)', () => {
    const t = now();
    const good = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: t });
    const other = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_old', timestamp: t }).split(',')[1];
    const header = `${good.split(',')[0]},${other},${good.split(',')[1]}`;
    expect(stripeAccepts(payload, header)).to.equal(true);
    expect(ours(payload, header)).to.equal('accepted');
  });

  it('refuses what the Stripe library refuses: another secret, a changed body, an old timestamp', () => {
    const wrong = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    const fresh = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: now() - 301 });
    const changed = payload.replace('cs_1', 'cs_2');
    expect([stripeAccepts(payload, wrong), stripeAccepts(changed, fresh), stripeAccepts(payload, stale)]).to.deep.equal([false, false, false]);
    expect([ours(payload, wrong), ours(changed, fresh), ours(payload, stale)]).to.deep.equal(['mismatch', 'mismatch', 'stale']);
  });

  it('accepts a signature 299 seconds old and refuses one from more than 5 minutes ahead', () => {
    const recent = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: now() - 299 });
    const future = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: now() + 301 });
    expect(ours(payload, recent)).to.equal('accepted');
    expect(ours(payload, future)).to.equal('stale');
  });

  it('refuses a missing or malformed header', () => {
    const t = now();
    expect(ours(payload, '')).to.equal('missing');
    expect(ours(payload, 'garbage')).to.equal('malformed');
    expect(ours(payload, `t=${t}`)).to.equal('malformed');
    expect(ours(payload, `v1=${'a'.repeat(64)}`)).to.equal('malformed');
    expect(ours(payload, `t=${t},v1=abc`)).to.equal('malformed');
    expect(ours(payload, `t=${t},v0=${createHmac('sha256', SECRET).update(`${t}.${payload}`).digest('hex')}`)).to.equal('malformed');
  });

  it('checks the exact bytes: the same JSON re-serialised with other spacing does not verify', () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    expect(ours(JSON.stringify(JSON.parse(payload), null, 2), header)).to.equal('mismatch');
  });
});
