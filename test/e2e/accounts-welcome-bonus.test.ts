import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { unlockBonusReference } from '../../control-plane/accounts/welcome-bonus.js';
import { applyLedgerEntry } from '../../control-plane/billing/ledger.js';
import { apiClient, balanceOf } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser } from '../support/users.js';

describe('accounts: the welcome bonus', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let api: ReturnType<typeof apiClient>;
  before(async () => {
    stack = await getStack();
    api = apiClient(stack.baseUrl);
  });

  const bearer = (token: string, more: Record<string, string> = {}) => ({ Authorization: `Bearer ${token}`, ...more });
  const unlock = (token: string, key?: string) => api.post('/api/v1/auth/unlock-welcome-bonus', undefined, bearer(token, key ? { 'Idempotency-Key': key } : {}));

  /**
   * A user registered through the API after a sibling at the same company
   * domain (and from the same address, as every test request is): so with
   * the reduced bonus.
   */
  async function reducedUser() {
    const domain = `${randomUUID().slice(0, 8)}.example`;
    const sibling = `jane@${domain}`;
    expect((await api.post('/api/v1/auth/register', { email: sibling, password: 'sibling password' })).status).to.equal(201);
    const res = await api.post('/api/v1/auth/register', { email: `max@${domain}`, password: 'another password' });
    expect(res.status).to.equal(201);
    expect(res.body.welcome_bonus.reduced).to.equal(true);
    return { token: res.body.access_token as string, accountId: res.body.account_id as string, sibling, bonus: res.body.welcome_bonus };
  }

  const deposit = (accountId: string, microcents = 5_000_000) =>
    applyLedgerEntry(stack.pool, { accountId, kind: 'deposit', amountMicrocents: microcents, reference: `payment:test-${randomUUID()}` });

  it('credits the reduced bonus to a sibling account and reports it with the siblings obfuscated', async () => {
    const user = await reducedUser();
    expect(user.bonus).to.deep.equal({ credits: 1_000, microcents: 200_000, reduced: true });
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(200_000);
    const status = await api.get('/api/v1/auth/welcome-status', bearer(user.token));
    expect(status.status).to.equal(200);
    expect(status.body).to.deep.include({
      has_reduced_bonus: true,
      has_deposit: false,
      can_unlock: false,
      granted_bonus_credits: 1_000,
      remaining_bonus_credits: 4_000,
      unlocked_at: null,
    });
    expect(status.body.sibling_accounts).to.include(`j***@${user.sibling.split('@')[1]!.slice(0, 1)}***.example`);
    expect(JSON.stringify(status.body)).not.to.contain(user.sibling);
  });

  it('refuses to unlock before a deposit with 402 DEPOSIT_REQUIRED', async () => {
    const user = await reducedUser();
    const res = await unlock(user.token, randomUUID());
    expect(res.status).to.equal(402);
    expect(res.body.error).to.equal('DEPOSIT_REQUIRED');
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(200_000);
  });

  it('refuses to unlock without an Idempotency-Key, or with a malformed one, with 400', async () => {
    const user = await reducedUser();
    await deposit(user.accountId);
    for (const key of [undefined, 'has spaces', 'k'.repeat(256)]) {
      const res = await unlock(user.token, key);
      expect(res.status, String(key)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
    }
  });

  it('refuses to unlock an account that got the full bonus (no reduced-bonus record) with 409', async () => {
    const user = await createTestUser(stack, { microcents: 1_000_000 });
    await deposit(user.accountId);
    const res = await unlock(user.token, randomUUID());
    expect(res.status).to.equal(409);
    expect(res.body.error).to.equal('WELCOME_BONUS_NOT_REDUCED');
    const status = await api.get('/api/v1/auth/welcome-status', bearer(user.token));
    expect(status.body).to.deep.include({ has_reduced_bonus: false, can_unlock: false, remaining_bonus_credits: 0, sibling_accounts: [] });
  });

  it('unlocks once after a deposit; the same key answers the same, another key 409', async () => {
    const user = await reducedUser();
    await deposit(user.accountId);
    const before = await api.get('/api/v1/auth/welcome-status', bearer(user.token));
    expect(before.body).to.include({ has_deposit: true, can_unlock: true });
    const key = randomUUID();
    const first = await unlock(user.token, key);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body).to.include({ unlocked_credits: 4_000, unlocked_microcents: 800_000, balance_after_microcents: 6_000_000 });
    const repeat = await unlock(user.token, key);
    expect(repeat.status).to.equal(200);
    expect(repeat.body).to.deep.equal(first.body);
    const other = await unlock(user.token, randomUUID());
    expect(other.status).to.equal(409);
    expect(other.body.error).to.equal('WELCOME_BONUS_ALREADY_UNLOCKED');
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(6_000_000);
    const after = await api.get('/api/v1/auth/welcome-status', bearer(user.token));
    expect(after.body).to.include({ can_unlock: false, remaining_bonus_credits: 0, unlocked_at: first.body.unlocked_at });
  });

  it('credits the rest exactly once under concurrent unlocks with the same and with different keys', async () => {
    const user = await reducedUser();
    await deposit(user.accountId);
    const shared = randomUUID();
    const keys = [shared, shared, shared, shared, randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const answers = await Promise.all(keys.map((key) => unlock(user.token, key)));
    const ok = answers.map((res, i) => ({ res, key: keys[i]! })).filter(({ res }) => res.status === 200);
    expect(ok.length).to.be.at.least(1);
    expect(new Set(ok.map((o) => o.key)).size, 'one key wins').to.equal(1);
    for (const { res } of ok) expect(res.body).to.deep.equal(ok[0]!.res.body);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('WELCOME_BONUS_ALREADY_UNLOCKED');
    }
    if (ok[0]!.key === shared) expect(ok).to.have.length(4);
    const credits = await stack.pool.query('SELECT amount_microcents FROM ledger_entries WHERE reference = $1', [unlockBonusReference(user.accountId)]);
    expect(credits.rows).to.deep.equal([{ amount_microcents: '800000' }]);
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(200_000 + 5_000_000 + 800_000);
  });

  it('answers concurrent unlocks with one key identically, crediting once', async () => {
    const user = await reducedUser();
    await deposit(user.accountId);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => unlock(user.token, key)));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
    for (const res of answers) expect(res.body).to.deep.equal(answers[0]!.body);
    expect(await balanceOf(stack.pool, user.accountId)).to.equal(200_000 + 5_000_000 + 800_000);
  });

  it('does not count the welcome bonus itself as a deposit', async () => {
    const user = await reducedUser();
    const status = await api.get('/api/v1/auth/welcome-status', bearer(user.token));
    expect(status.body.has_deposit).to.equal(false);
  });
});
