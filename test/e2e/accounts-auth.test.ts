import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { IP_LIMITS } from '../../common/limits.js';
import { redisKeys } from '../../common/redis-keys.js';
import { createApiKey } from '../../control-plane/accounts/api-keys.js';
import { createSessionTokens } from '../../control-plane/accounts/session-tokens.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser } from '../support/users.js';

const USD = 1_000_000;

function newEmail(): string {
  return `user-${randomUUID()}@${randomUUID().slice(0, 8)}.example`;
}

/** An error body without its per-request id, for comparing two answers. */
function withoutRequestId(body: Record<string, unknown>) {
  const { request_id: _id, ...rest } = body;
  return rest;
}

describe('accounts: registration, login and the current user', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let api: ReturnType<typeof apiClient>;
  before(async () => {
    stack = await getStack();
    api = apiClient(stack.baseUrl);
  });

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  it('registers, logs in and reads the current user with the session', async () => {
    const email = newEmail();
    const registered = await api.post('/api/v1/auth/register', { email, password: 'correct horse battery' });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
    expect(registered.body).to.include({ token_type: 'bearer' });
    expect(registered.body.access_token).to.be.a('string');
    expect(registered.body.user).to.include({ email, role: 'user' });
    expect(registered.body.welcome_bonus.microcents).to.be.greaterThan(0);

    const login = await api.post('/api/v1/auth/login', { email: email.toUpperCase(), password: 'correct horse battery' });
    expect(login.status).to.equal(200);
    expect(Object.keys(login.body).sort()).to.deep.equal(['access_token', 'expires_at', 'token_type']);
    expect(login.body.token_type).to.equal('bearer');
    expect(Date.parse(login.body.expires_at)).to.be.greaterThan(Date.now());

    const me = await api.get('/api/v1/auth/me', bearer(login.body.access_token));
    expect(me.status).to.equal(200);
    expect(me.body.user).to.deep.equal(registered.body.user);
    expect(me.body.account.id).to.equal(registered.body.account_id);
    expect(me.body.account.balance_microcents).to.equal(registered.body.welcome_bonus.microcents);
    expect(me.body.account.balance_credits).to.equal(me.body.account.balance_microcents / 200);
    expect(me.body.account.balance_usd).to.equal(me.body.account.balance_microcents / USD);
    expect(me.body.tier).to.include({ id: 'free', name: 'Free', requests_per_minute: 30, burst_per_second: 5, concurrent_requests: 3, effective_post_per_minute: 15 });
    expect(me.body.tier.next_tier).to.include({ id: 'basic', min_balance_usd: 5 });
    expect(me.body.tier.next_tier.balance_needed_microcents).to.equal(5 * USD - me.body.account.balance_microcents);
    expect(me.body).to.include({ credential: 'session', acting_organization: null });
    expect(me.body.organizations).to.deep.equal([]);
  });

  it('reads the current user with an API key, with its balance tier', async () => {
    const user = await createTestUser(stack, { microcents: 60 * USD });
    const me = await apiClient(stack.baseUrl, user.key).get('/api/v1/auth/me?skip_pre_auth_rate_limit=true');
    expect(me.status).to.equal(200);
    expect(me.body.user).to.include({ id: user.userId, email: user.email, role: 'user' });
    expect(me.body.account).to.include({ id: user.accountId, balance_microcents: 60 * USD, balance_usd: 60, is_enterprise: false });
    expect(me.body.tier).to.include({ id: 'growth', requests_per_minute: 100 });
    expect(me.body.tier.next_tier).to.include({ id: 'scale', balance_needed_usd: 140 });
    expect(me.body.credential).to.equal('api_key');
  });

  it('shows the enterprise tier, with no next tier, for an enterprise account', async () => {
    const user = await createTestUser(stack, { microcents: 0 });
    await stack.pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [user.accountId]);
    const me = await apiClient(stack.baseUrl, user.key).get('/api/v1/auth/me');
    expect(me.body.tier).to.include({ id: 'enterprise', next_tier: null });
    expect(me.body.account.is_enterprise).to.equal(true);
  });

  it('refuses a skip_pre_auth_rate_limit that is not a boolean with 400', async () => {
    const user = await createTestUser(stack);
    const res = await apiClient(stack.baseUrl, user.key).get('/api/v1/auth/me?skip_pre_auth_rate_limit=maybe');
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('VALIDATION_ERROR');
  });

  it('answers /auth/me without any credential with 401 MISSING_API_KEY', async () => {
    const res = await api.get('/api/v1/auth/me');
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('MISSING_API_KEY');
  });

  it('records the client address the gateway saw, not one the client claims', async () => {
    const email = newEmail();
    const res = await api.post('/api/v1/auth/register', { email, password: 'long enough pw' }, { 'X-Trawl-Client-Ip': '203.0.113.5' });
    expect(res.status).to.equal(201);
    const row = await stack.pool.query<{ ip: string }>('SELECT host(signup_ip) AS ip FROM users WHERE id = $1', [res.body.user.id]);
    expect(row.rows[0]!.ip).to.equal('127.0.0.1');
  });

  it('answers a second registration of an e-mail address, in any case, with 409 CONFLICT', async () => {
    const email = newEmail();
    expect((await api.post('/api/v1/auth/register', { email, password: 'first password' })).status).to.equal(201);
    const again = await api.post('/api/v1/auth/register', { email: email.toUpperCase(), password: 'another password' });
    expect(again.status).to.equal(409);
    expect(again.body.error).to.equal('CONFLICT');
    expect(again.body.message).not.to.contain(email);
    expect(again.body.details).to.equal(undefined);
  });

  it('answers a wrong password and an unknown e-mail with the same 401 INVALID_CREDENTIALS body', async () => {
    const email = newEmail();
    await api.post('/api/v1/auth/register', { email, password: 'the right password' });
    const wrongPassword = await api.post('/api/v1/auth/login', { email, password: 'the wrong password' });
    const unknownEmail = await api.post('/api/v1/auth/login', { email: newEmail(), password: 'the right password' });
    expect(wrongPassword.status).to.equal(401);
    expect(unknownEmail.status).to.equal(401);
    expect(wrongPassword.body.error).to.equal('INVALID_CREDENTIALS');
    expect(withoutRequestId(unknownEmail.body)).to.deep.equal(withoutRequestId(wrongPassword.body));
    expect([...wrongPassword.headers.keys()].sort()).to.deep.equal([...unknownEmail.headers.keys()].sort());
  });

  it('spends a password hash on an unknown e-mail too, so timing does not tell which addresses exist', async () => {
    const email = newEmail();
    await api.post('/api/v1/auth/register', { email, password: 'the right password' });
    const timed = async (body: unknown) => {
      const started = performance.now();
      await api.post('/api/v1/auth/login', body);
      return performance.now() - started;
    };
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const wrong: number[] = [];
    const unknown: number[] = [];
    // Two of each: with the registration's own check, within the 5 logins per 15 minutes an address may make.
    for (let i = 0; i < 2; i++) {
      wrong.push(await timed({ email, password: 'the wrong password' }));
      unknown.push(await timed({ email: newEmail(), password: 'the wrong password' }));
    }
    // A lookup that skipped the hash would answer in a few milliseconds; a hash takes a large fraction of a second.
    expect(mean(unknown)).to.be.greaterThan(mean(wrong) * 0.4);
  });

  it('declares the per-address limits of the sign-up routes: a fourth registration within the hour answers 429', async () => {
    for (let i = 0; i < 3; i++) expect((await api.post('/api/v1/auth/register', { email: newEmail(), password: 'long enough pw' })).status).to.equal(201);
    const fourth = await api.post('/api/v1/auth/register', { email: newEmail(), password: 'long enough pw' });
    expect(fourth.status).to.equal(429);
    expect(fourth.body.error).to.equal('RATE_LIMIT_EXCEEDED');
    expect(Number(fourth.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('counts check-email per e-mail address too: the eleventh check of one address within the hour answers 429', async () => {
    const email = newEmail();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      // A fresh per-address count every five checks, so only the per-e-mail limit can refuse.
      if (i % 5 === 0) await stack.redis.del(redisKeys(stack.config.natsPrefix).ipLimit(IP_LIMITS.checkEmailPerIp.name, '127.0.0.1'));
      statuses.push((await api.post('/api/v1/auth/check-email', { email })).status);
    }
    expect(statuses).to.deep.equal([...Array(10).fill(200), 429]);
  });

  it('logs in a user created without a password with the same INVALID_CREDENTIALS', async () => {
    const user = await createTestUser(stack);
    const res = await api.post('/api/v1/auth/login', { email: user.email, password: 'any password at all' });
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('INVALID_CREDENTIALS');
  });

  it('answers an expired session token with 401 SESSION_EXPIRED', async () => {
    const user = await createTestUser(stack);
    const config = stack.config.session;
    const past = createSessionTokens({ ...config, now: () => Date.now() - (config.ttlSeconds + 60) * 1000 });
    const { token } = await past.issue(user.userId);
    const res = await api.get('/api/v1/auth/welcome-status', bearer(token));
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('SESSION_EXPIRED');
    expect(JSON.stringify(res.body)).not.to.contain(token);
  });

  it('answers a tampered, foreign-signed or garbage session token with 401 INVALID_SESSION_TOKEN', async () => {
    const user = await createTestUser(stack);
    const [header, payload, signature] = user.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, sub: randomUUID() })).toString('base64url');
    const foreign = await createSessionTokens({ secret: 'x'.repeat(40), ttlSeconds: 600 }).issue(user.userId);
    for (const token of [`${header}.${forgedPayload}.${signature}`, `${header}.${payload}.${signature.slice(0, -4)}AAAA`, foreign.token, 'not-a-jwt']) {
      const res = await api.get('/api/v1/auth/me', bearer(token));
      expect(res.status, token).to.equal(401);
      expect(res.body.error, token).to.equal('INVALID_SESSION_TOKEN');
    }
  });

  it('answers a session route without a bearer token with 401', async () => {
    const user = await createTestUser(stack);
    const res = await apiClient(stack.baseUrl, user.key).get('/api/v1/auth/welcome-status');
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('INVALID_SESSION_TOKEN');
  });

  it('tells whether an e-mail address exists and has a password', async () => {
    const email = newEmail();
    await api.post('/api/v1/auth/register', { email, password: 'some password' });
    const passwordless = await createTestUser(stack);
    expect((await api.post('/api/v1/auth/check-email', { email })).body).to.deep.equal({ exists: true, has_password: true });
    expect((await api.post('/api/v1/auth/check-email', { email: passwordless.email })).body).to.deep.equal({ exists: true, has_password: false });
    expect((await api.post('/api/v1/auth/check-email', { email: newEmail() })).body).to.deep.equal({ exists: false, has_password: false });
  });

  it('never stores a password in clear and never writes one to the logs', async () => {
    const email = newEmail();
    const password = `pw-${randomUUID()}`;
    await api.post('/api/v1/auth/register', { email, password });
    await api.post('/api/v1/auth/login', { email, password });
    await api.post('/api/v1/auth/login', { email, password: `${password}-wrong` });
    await api.post('/api/v1/auth/register', { email, password });
    const row = await stack.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', [email]);
    expect(row.rows[0]!.password_hash).to.match(/^scrypt\$/);
    expect(row.rows[0]!.password_hash).not.to.contain(password);
    const dump = await stack.pool.query(`SELECT count(*)::int AS n FROM users u, accounts a WHERE u.account_id = a.id AND (u::text LIKE $1 OR a::text LIKE $1)`, [
      `%${password}%`,
    ]);
    expect(dump.rows[0].n).to.equal(0);
    expect(stack.output.filter((line) => line.includes(password))).to.deep.equal([]);
  });

  for (const [what, path, body] of [
    ['an invalid e-mail on register', '/api/v1/auth/register', { email: 'not-an-email', password: 'long enough pw' }],
    ['a short password on register', '/api/v1/auth/register', { email: 'a@b.example', password: 'short' }],
    ['a password over 256 characters on register', '/api/v1/auth/register', { email: 'a@b.example', password: 'p'.repeat(257) }],
    ['a missing password on register', '/api/v1/auth/register', { email: 'a@b.example' }],
    ['an unknown field on register', '/api/v1/auth/register', { email: 'a@b.example', password: 'long enough pw', admin: true }],
    ['a non-string e-mail on login', '/api/v1/auth/login', { email: 42, password: 'long enough pw' }],
    ['an empty password on login', '/api/v1/auth/login', { email: 'a@b.example', password: '' }],
    ['an e-mail over 254 characters on check-email', '/api/v1/auth/check-email', { email: `${'a'.repeat(250)}@b.example` }],
    ['an array body on check-email', '/api/v1/auth/check-email', ['a@b.example']],
    ['malformed JSON on login', '/api/v1/auth/login', '{"email":'],
  ] as const) {
    it(`answers ${what} with 400 in the error envelope`, async () => {
      const res = await api.post(path, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.request_id).to.be.a('string');
      if (typeof body === 'object' && body !== null && 'password' in body && body.password) expect(JSON.stringify(res.body)).not.to.contain(body.password);
    });
  }
});

describe('accounts: legacy keys', function () {
  this.timeout(60_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });

  it('counts live keys no user created as legacy, and remembers the notice per account', async () => {
    // A balance whose tier allows the six request tokens below within one second.
    const user = await createTestUser(stack, { microcents: 60_000_000 });
    const api = apiClient(stack.baseUrl, user.key);
    expect((await api.get('/api/v1/api-keys/legacy-status')).body).to.deep.equal({ has_legacy_keys: true, legacy_key_count: 1, notice_shown: false });
    const shown = await api.post('/api/v1/api-keys/legacy-notice-shown', undefined);
    expect(shown.status).to.equal(200);
    expect(shown.body).to.deep.equal({ status: 'ok' });
    expect((await api.post('/api/v1/api-keys/legacy-notice-shown', undefined)).body).to.deep.equal({ status: 'ok' });
    expect((await api.get('/api/v1/api-keys/legacy-status')).body).to.deep.equal({ has_legacy_keys: true, legacy_key_count: 1, notice_shown: true });

    const other = await createTestUser(stack);
    expect((await apiClient(stack.baseUrl, other.key).get('/api/v1/api-keys/legacy-status')).body.notice_shown).to.equal(false);
  });

  it('does not count keys a user created, nor revoked ones', async () => {
    const user = await createTestUser(stack);
    await stack.pool.query('UPDATE api_keys SET created_by_user_id = $1 WHERE account_id = $2', [user.userId, user.accountId]);
    const revoked = await createApiKey(stack.pool, { accountId: user.accountId, name: 'old', environment: 'live', masterKeyHex: stack.config.masterKeyHex });
    await stack.pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.id]);
    expect((await apiClient(stack.baseUrl, user.key).get('/api/v1/api-keys/legacy-status')).body).to.include({ has_legacy_keys: false, legacy_key_count: 0 });
  });

  it('takes an API key, not a session', async () => {
    const user = await createTestUser(stack);
    const res = await apiClient(stack.baseUrl).get('/api/v1/api-keys/legacy-status', { Authorization: `Bearer ${user.token}` });
    expect(res.status).to.equal(401);
    expect(res.body.error).to.equal('MISSING_API_KEY');
  });
});
