import { expect } from 'chai';
import { createAccount } from '../../../control-plane/accounts/api-keys.js';
import { openCheckout } from '../../../control-plane/billing/checkout.js';
import { handlePaymentEvent } from '../../../control-plane/billing/payment-events.js';
import { createPaymentProvider } from '../../../control-plane/billing/payment-provider.js';
import { startPaymentTestServer, type PaymentTestServer } from '../../fixtures/payment-provider-server.js';
import { getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

describe('checkout through a payment provider speaking Stripe\'s API', function () {
  this.timeout(60_000);
  let stack: ControlPlaneServices;
  let provider: PaymentTestServer;
  let accountId: string;
  let userId: string;
  before(async () => {
    stack = await getControlPlaneServices();
    provider = await startPaymentTestServer();
    ({ accountId } = await createAccount(stack.pool, { name: 'checkout', initialMicrocents: 0 }));
    userId = (await stack.pool.query<{ id: string }>('INSERT INTO users (email, account_id) VALUES ($1, $2) RETURNING id', [`checkout-${accountId}@example.test`, accountId])).rows[0]!.id;
  });
  after(() => provider.close());

  const input = (amountCents = 2_500) => ({ accountId, userId, amountCents, successUrl: 'https://app.example/paid', cancelUrl: 'https://app.example/cancelled' });

  it('is unavailable without a base URL or a secret key', async () => {
    expect(createPaymentProvider({ baseUrl: '', secretKey: 'sk_test_x', timeoutMs: 1_000 })).to.equal(null);
    expect(createPaymentProvider({ baseUrl: provider.baseUrl, secretKey: '', timeoutMs: 1_000 })).to.equal(null);
    const refused = await openCheckout(stack.pool, null, input()).catch((err: { code?: string; httpStatus?: number }) => err);
    expect(refused).to.include({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
    const webhook = await handlePaymentEvent(stack.pool, '', Buffer.from('{}'), 't=1,v1=00').catch((err: { code?: string }) => err);
    expect(webhook).to.include({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('refuses a base URL with a path, which the Stripe client cannot address', () => {
    expect(() => createPaymentProvider({ baseUrl: `${provider.baseUrl}/stripe`, secretKey: 'sk_test_x', timeoutMs: 1_000 })).to.throw(/without a path/);
  });

  it('opens a payment-mode session for the account in cents, form-encoded with the secret as a Bearer token, and records it', async () => {
    const payments = createPaymentProvider({ baseUrl: provider.baseUrl, secretKey: provider.secretKey, timeoutMs: 5_000 });
    const session = await openCheckout(stack.pool, payments, input(1_234));
    expect(session.sessionId).to.match(/^cs_test_/);
    expect(session.checkoutUrl).to.equal(`${provider.baseUrl}/pay/${session.sessionId}`);
    const sent = provider.requests.at(-1)!;
    expect(sent.authorization).to.equal(`Bearer ${provider.secretKey}`);
    expect(sent.contentType).to.equal('application/x-www-form-urlencoded');
    expect(Object.fromEntries(sent.form)).to.include({
      mode: 'payment',
      client_reference_id: accountId,
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '1234',
      success_url: 'https://app.example/paid',
      cancel_url: 'https://app.example/cancelled',
      'metadata[account_id]': accountId,
      'metadata[user_id]': userId,
    });
    const recorded = await stack.pool.query('SELECT account_id, user_id, amount_microcents, status FROM checkout_sessions WHERE id = $1', [session.sessionId]);
    expect(recorded.rows[0]).to.deep.equal({ account_id: accountId, user_id: userId, amount_microcents: '12340000', status: 'open' });
  });

  it('answers UPSTREAM_ERROR without the provider\'s message when the provider refuses the key or fails', async () => {
    const wrongKey = createPaymentProvider({ baseUrl: provider.baseUrl, secretKey: 'sk_test_not_the_right_one', timeoutMs: 5_000 });
    const refused = (await openCheckout(stack.pool, wrongKey, input()).catch((err: unknown) => err)) as { code: string; message: string; details: unknown };
    expect(refused.code).to.equal('UPSTREAM_ERROR');
    expect(refused.details).to.deep.equal({ provider_status: 401 });
    expect(refused.message).not.to.contain('sk_test');
    const payments = createPaymentProvider({ baseUrl: provider.baseUrl, secretKey: provider.secretKey, timeoutMs: 5_000 });
    provider.failNext(400);
    expect(await openCheckout(stack.pool, payments, input()).catch((err: { code?: string }) => err.code)).to.equal('UPSTREAM_ERROR');
  });

  it('refuses amounts outside 5 to 10,000 US dollars and URLs that are not http(s) before calling the provider', async () => {
    const payments = createPaymentProvider({ baseUrl: provider.baseUrl, secretKey: provider.secretKey, timeoutMs: 5_000 });
    const before = provider.requests.length;
    for (const bad of [input(499), input(1_000_001), { ...input(), successUrl: 'javascript:alert(1)' }, { ...input(), cancelUrl: 'not a url' }]) {
      expect(await openCheckout(stack.pool, payments, bad).catch((err: { code?: string }) => err.code)).to.equal('VALIDATION_ERROR');
    }
    expect(provider.requests.length).to.equal(before);
  });
});
