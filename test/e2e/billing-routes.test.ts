import { expect } from 'chai';
import Stripe from 'stripe';
import { IP_LIMITS } from '../../common/limits.js';
import { routeTable } from '../../gateway/api/routes.js';
import { createControlPlaneClient } from '../../gateway/control-plane-client.js';
import { apiClient, balanceOf } from '../support/api.js';
import { checkout, checkoutAddress, CHECKOUT_URLS } from '../support/checkout.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

const USD = 1_000_000;
const BALANCE_FIELDS = ['balance_credits', 'balance_microcents', 'balance_usd', 'is_enterprise', 'subscription_status', 'tier'];

const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });
const URLS = CHECKOUT_URLS;

describe('billing routes: balance, usage, checkout and the payment webhook', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let webhookUrl: string;
  before(async () => {
    stack = await getStack();
    webhookUrl = `${stack.baseUrl}/api/v1/billing/webhook`;
  });

  const depositsOf = async (accountId: string) =>
    (await stack.pool.query<{ reference: string; amount_microcents: string }>(`SELECT reference, amount_microcents FROM ledger_entries WHERE account_id = $1 AND kind = 'deposit' AND reference LIKE 'checkout:%'`, [accountId])).rows;

  describe('GET /api/v1/billing/balance and GET /api/v1/usage/balance', () => {
    it('answer the same balance view with an API key and with a session token', async () => {
      const user = await createTestUser(stack, { microcents: 7 * USD });
      const withKey = await apiClient(stack.baseUrl, user.key).get('/api/v1/billing/balance');
      expect(withKey.status).to.equal(200);
      expect(Object.keys(withKey.body).sort()).to.deep.equal(BALANCE_FIELDS);
      expect(withKey.body).to.deep.equal({
        balance_microcents: 7 * USD,
        balance_credits: 35_000,
        balance_usd: 7,
        tier: { id: 'basic', name: 'Basic' },
        is_enterprise: false,
        subscription_status: 'none',
      });
      const withSession = await apiClient(stack.baseUrl).get('/api/v1/billing/balance', bearer(user));
      expect(withSession.body).to.deep.equal(withKey.body);
      for (const credential of [{ 'X-API-Key': user.key }, bearer(user)]) {
        const usage = await apiClient(stack.baseUrl).get('/api/v1/usage/balance', credential);
        expect(usage.status).to.equal(200);
        expect(usage.body).to.deep.equal(withKey.body);
      }
    });

    it('show the enterprise tier for an account with the enterprise flag, whatever its balance', async () => {
      const user = await createTestUser(stack, { microcents: 0 });
      await stack.pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [user.accountId]);
      const res = await apiClient(stack.baseUrl, user.key).get('/api/v1/billing/balance');
      expect(res.body).to.include({ is_enterprise: true, balance_microcents: 0 });
      expect(res.body.tier).to.deep.equal({ id: 'enterprise', name: 'Enterprise' });
    });

    it('refuse a request without a credential or with an unknown key', async () => {
      for (const path of ['/api/v1/billing/balance', '/api/v1/usage/balance', '/api/v1/usage']) {
        const missing = await apiClient(stack.baseUrl).get(path);
        expect(missing.status, path).to.equal(401);
        expect(missing.body.error).to.equal('MISSING_API_KEY');
        const unknown = await apiClient(stack.baseUrl, `sk_live_${'Z'.repeat(32)}`).get(path);
        expect(unknown.status, path).to.equal(401);
        expect(unknown.body.error).to.equal('INVALID_API_KEY');
      }
    });
  });

  describe('GET /api/v1/usage', () => {
    it('counts requests, spend and deposits of the account by UTC day, today last', async () => {
      const user = await createTestUser(stack, { microcents: USD });
      const other = await createTestUser(stack, { microcents: USD });
      const extract = (key: string) => apiClient(stack.baseUrl, key).post('/api/v1/extract', { content: '<h1>Usage</h1><p>Counted once.</p>', formats: ['text'] });
      expect((await extract(user.key)).status).to.equal(200);
      expect((await extract(other.key)).status).to.equal(200);

      const res = await apiClient(stack.baseUrl, user.key).get('/api/v1/usage');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        days: 30,
        total_requests: 1,
        successful_requests: 1,
        failed_requests: 0,
        spend_microcents: 2_500,
        credits_used: 12.5,
        refunded_microcents: 0,
        deposits_microcents: USD,
      });
      expect(res.body.by_day).to.have.length(30);
      const today = new Date().toISOString().slice(0, 10);
      expect(res.body.by_day.at(-1)).to.deep.equal({
        date: today,
        total_requests: 1,
        successful_requests: 1,
        failed_requests: 0,
        credits_used: 12.5,
        spend_microcents: 2_500,
        refunded_microcents: 0,
        deposits_microcents: USD,
      });
      expect(res.body.by_day[0].date < res.body.by_day[1].date).to.equal(true);
      expect(res.body.by_day.slice(0, -1).every((d: { total_requests: number }) => d.total_requests === 0)).to.equal(true);

      const withSession = await apiClient(stack.baseUrl).get('/api/v1/usage?days=1', bearer(user));
      expect(withSession.body.days).to.equal(1);
      expect(withSession.body.by_day.map((d: { date: string }) => d.date)).to.deep.equal([today]);
      expect((await apiClient(stack.baseUrl, user.key).get('/api/v1/usage?days=365')).body.by_day).to.have.length(365);
    });

    it('refuses days outside 1 to 365, non-numbers and unknown parameters with 400 VALIDATION_ERROR', async () => {
      const user = await createTestUser(stack);
      for (const query of ['days=0', 'days=366', 'days=abc', 'days=1.5', 'days=-3', 'page=2']) {
        const res = await apiClient(stack.baseUrl, user.key).get(`/api/v1/usage?${query}`);
        expect(res.status, query).to.equal(400);
        expect(res.body.error, query).to.equal('VALIDATION_ERROR');
      }
    });
  });

  describe('POST /api/v1/billing/checkout and POST /api/v1/billing/webhook', () => {
    it('declares the per-address checkout limit of 5 a minute', () => {
      const routes = routeTable({ controlPlane: createControlPlaneClient('http://127.0.0.1:9'), publicBaseUrl: 'http://127.0.0.1:8080' });
      const route = routes.find((r) => r.method === 'POST' && r.path === '/api/v1/billing/checkout')!;
      expect(route.ipLimits).to.deep.equal([IP_LIMITS.checkout]);
      expect(IP_LIMITS.checkout).to.include({ limit: 5, windowSeconds: 60 });
    });

    it('refuses the sixth checkout from one address within a minute with 429 RATE_LIMIT_EXCEEDED', async () => {
      const user = await createTestUser(stack);
      const address = checkoutAddress();
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await checkout(stack, bearer(user), { amount_usd: 4, ...URLS }, address)).status);
      expect(statuses).to.deep.equal([400, 400, 400, 400, 400, 429]);
    });

    it('opens a checkout, and deposits the paid amount once when the provider reports the session completed', async () => {
      const user = await createTestUser(stack, { microcents: 0 });
      const opened = await checkout(stack, bearer(user), { amount_usd: 50, ...URLS });
      expect(opened.status, JSON.stringify(opened.body)).to.equal(201);
      expect(Object.keys(opened.body).sort()).to.deep.equal(['checkout_url', 'session_id']);
      const session = stack.payments.sessions.get(opened.body.session_id)!;
      expect(opened.body.checkout_url).to.equal(session.url);
      expect(session).to.include({ amount_total: 5_000, currency: 'usd', client_reference_id: user.accountId, mode: 'payment' });
      expect(session.metadata).to.deep.equal({ account_id: user.accountId, user_id: user.userId });

      const delivered = await stack.payments.completeSession(session.id, webhookUrl);
      expect(delivered.status, JSON.stringify(delivered.body)).to.equal(200);
      expect(delivered.body).to.deep.equal({ received: true, outcome: 'deposited' });
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(50 * USD);
      const balance = await apiClient(stack.baseUrl, user.key).get('/api/v1/billing/balance');
      expect(balance.body).to.include({ balance_usd: 50, balance_credits: 250_000 });
      expect(balance.body.tier).to.deep.equal({ id: 'growth', name: 'Growth' });

      // The same delivery replayed, and the same session reported again under a new event id.
      const replay = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': delivered.signature },
        body: delivered.payload,
      });
      expect(replay.status).to.equal(200);
      expect(await replay.json()).to.deep.equal({ received: true, outcome: 'duplicate' });
      const again = await stack.payments.completeSession(session.id, webhookUrl);
      expect(again.body).to.deep.equal({ received: true, outcome: 'duplicate' });
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(50 * USD);
      expect(await depositsOf(user.accountId)).to.deep.equal([{ reference: `checkout:${session.id}`, amount_microcents: String(50 * USD) }]);
      const recorded = await stack.pool.query('SELECT status, completed_at IS NOT NULL AS completed FROM checkout_sessions WHERE id = $1', [session.id]);
      expect(recorded.rows[0]).to.deep.equal({ status: 'completed', completed: true });
    });

    it('answers 400 INVALID_SIGNATURE for another secret, a stale or missing signature and a changed body, depositing nothing', async () => {
      const user = await createTestUser(stack, { microcents: 0 });
      const opened = await checkout(stack, bearer(user), { amount_usd: 5, ...URLS });
      expect(opened.status).to.equal(201);
      const id = opened.body.session_id;
      const stale = Math.floor(Date.now() / 1000) - 301;
      const cases: Array<[string, Parameters<TestStack['payments']['completeSession']>[2], string]> = [
        ['another secret', { secret: 'whsec_not_ours' }, 'mismatch'],
        ['a stale timestamp', { timestamp: stale }, 'stale'],
        ['no signature', { signature: '' }, 'missing'],
        ['a malformed signature', { signature: 'v1=abc' }, 'malformed'],
      ];
      for (const [what, opts, reason] of cases) {
        const res = await stack.payments.completeSession(id, webhookUrl, opts);
        expect(res.status, what).to.equal(400);
        expect(res.body.error, what).to.equal('INVALID_SIGNATURE');
        expect(res.body.details, what).to.deep.equal({ reason });
        expect(res.body.request_id, what).to.be.a('string');
      }
      const signed = stack.payments.sessions.get(id)!;
      const header = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({
        payload: JSON.stringify({ id: 'evt_changed', type: 'checkout.session.completed', created: 1, data: { object: signed } }),
        secret: stack.payments.webhookSecret,
      });
      const changed = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
        body: JSON.stringify({ id: 'evt_changed', type: 'checkout.session.completed', created: 1, data: { object: { ...signed, amount_total: 999_999 } } }),
      });
      expect(changed.status).to.equal(400);
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(0);
      // The genuine delivery still goes through afterwards.
      expect((await stack.payments.completeSession(id, webhookUrl)).body.outcome).to.equal('deposited');
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(5 * USD);
    });

    it('verifies the exact bytes it received, whatever their spacing and characters', async () => {
      const user = await createTestUser(stack, { microcents: 0 });
      const opened = await checkout(stack, bearer(user), { amount_usd: 12.34, ...URLS });
      const session = { ...stack.payments.sessions.get(opened.body.session_id)!, payment_status: 'paid', status: 'complete', metadata: { note: 'Crédits \u2713 "quoted" \\ slash' } };
      const payload = `${JSON.stringify({ id: `evt_spaced_${session.id}`, type: 'checkout.session.completed', created: Math.floor(Date.now() / 1000), data: { object: session } }, null, 3)}\n`;
      const header = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret: stack.payments.webhookSecret });
      const res = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ received: true, outcome: 'deposited' });
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(12_340_000);
    });

    it('ignores sessions it did not open, unpaid sessions and event types it does not handle', async () => {
      const user = await createTestUser(stack, { microcents: 0 });
      const foreign = { id: 'cs_test_opened_elsewhere', object: 'checkout.session', payment_status: 'paid', status: 'complete', amount_total: 10_000, currency: 'usd', client_reference_id: user.accountId };
      const opened = await checkout(stack, bearer(user), { amount_usd: 20, ...URLS });
      const unpaid = { ...stack.payments.sessions.get(opened.body.session_id)!, payment_status: 'unpaid' };
      for (const event of [
        { type: 'checkout.session.completed', data: { object: foreign } },
        { type: 'checkout.session.completed', data: { object: unpaid } },
        { type: 'invoice.created', data: { object: { id: 'in_1' } } },
      ]) {
        const res = await stack.payments.sendEvent(webhookUrl, event);
        expect(res.status, event.type).to.equal(200);
        expect(res.body).to.deep.equal({ received: true, outcome: 'ignored' });
      }
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(0);
    });

    it('refuses checkout without a session token, with an API key only', async () => {
      const user = await createTestUser(stack);
      const res = await checkout(stack, { 'X-API-Key': user.key }, { amount_usd: 10, ...URLS });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal('INVALID_SESSION_TOKEN');
    });

    it('refuses amounts outside 5 to 10,000 US dollars, fractions of a cent, bad URLs and unknown fields with 400', async () => {
      const user = await createTestUser(stack);
      const before = stack.payments.requests.length;
      for (const body of [
        { amount_usd: 4.99, ...URLS },
        { amount_usd: 10_000.01, ...URLS },
        { amount_usd: 5.001, ...URLS },
        { amount_usd: '10', ...URLS },
        { amount_usd: 10, success_url: 'ftp://app.example/', cancel_url: URLS.cancel_url },
        { amount_usd: 10, success_url: URLS.success_url },
        { amount_usd: 10, ...URLS, currency: 'eur' },
      ]) {
        const res = await checkout(stack, bearer(user), body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error).to.equal('VALIDATION_ERROR');
      }
      expect(stack.payments.requests.length).to.equal(before);
      expect((await checkout(stack, bearer(user), { amount_usd: 10_000, ...URLS })).status).to.equal(201);
    });

    it('answers 502 UPSTREAM_ERROR when the payment provider fails, without its message', async () => {
      const user = await createTestUser(stack);
      stack.payments.failNext(402);
      const res = await checkout(stack, bearer(user), { amount_usd: 10, ...URLS });
      expect(res.status).to.equal(502);
      expect(res.body.error).to.equal('UPSTREAM_ERROR');
      expect(JSON.stringify(res.body)).not.to.contain(stack.payments.secretKey);
      expect(JSON.stringify(res.body)).not.to.contain('Something went wrong');
    });
  });

  describe('credits events', () => {
    it('records one credits.low event when a request takes the balance below 100 credits', async () => {
      const user = await createTestUser(stack, { microcents: 21_000 });
      const extract = () => apiClient(stack.baseUrl, user.key).post('/api/v1/extract', { content: '<p>Spend a little.</p>', formats: ['text'] });
      expect((await extract()).status).to.equal(200);
      expect((await extract()).status).to.equal(200);
      const events = await stack.pool.query<{ type: string; payload: { balance_microcents: number } }>("SELECT type, payload FROM event_outbox WHERE account_id = $1 AND type LIKE 'credits.%'", [user.accountId]);
      expect(events.rows.map((e) => e.type)).to.deep.equal(['credits.low']);
      expect(await balanceOf(stack.pool, user.accountId)).to.equal(16_000);
    });
  });
});
