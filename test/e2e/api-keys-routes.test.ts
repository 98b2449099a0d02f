import { expect } from 'chai';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

const USD = 1_000_000;
const UNKNOWN_ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('API keys: management routes', function () {
  this.timeout(60_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });

  /** Calls with a session token, or with an API key; optionally acting for an organization. */
  const as = (credential: { token: string } | { key: string }, organizationId?: string) => {
    const headers: Record<string, string> = {
      ...('token' in credential ? { Authorization: `Bearer ${credential.token}` } : { 'X-API-Key': credential.key }),
      ...(organizationId ? { 'X-Organization-Id': organizationId } : {}),
    };
    const api = apiClient(stack.baseUrl);
    return {
      get: (path: string) => api.get(path, headers),
      post: (path: string, body?: unknown) => api.call('POST', path, body, headers),
      put: (path: string, body: unknown) => api.call('PUT', path, body, headers),
      patch: (path: string, body: unknown) => api.call('PATCH', path, body, headers),
      delete: (path: string) => api.call('DELETE', path, undefined, headers),
    };
  };

  async function createKey(user: TestUser, body: Record<string, unknown> = { name: 'ci' }) {
    const res = await as(user).post('/api/v1/api-keys', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { id: string; key: string; key_prefix: string; name: string; environment: string };
  }

  it('creates a live key by default and shows the whole key only once', async () => {
    const user = await createTestUser(stack, { microcents: USD });
    const created = await createKey(user, { name: 'Production' });
    expect(created.key).to.match(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(created).to.include({ name: 'Production', environment: 'live', key_prefix: created.key.slice(0, 12) });
    expect(created).to.have.keys(['id', 'name', 'key_prefix', 'key', 'scopes', 'environment', 'created_at', 'last_used_at']);
    const test = await createKey(user, { name: 'Sandbox', environment: 'test' });
    expect(test.key).to.match(/^sk_test_/);

    const list = await as(user).get('/api/v1/api-keys');
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(3);
    expect(list.body.api_keys.map((k: { name: string }) => k.name)).to.deep.equal(['Sandbox', 'Production', 'key']);
    for (const k of list.body.api_keys) expect(k).not.to.have.property('key');
    expect(JSON.stringify(list.body)).not.to.contain(created.key);

    const createdRow = await stack.pool.query('SELECT created_by_user_id FROM api_keys WHERE id = $1', [created.id]);
    expect(createdRow.rows[0].created_by_user_id).to.equal(user.userId);
  });

  it('records when a key was last used', async () => {
    const user = await createTestUser(stack, { microcents: USD });
    const created = await createKey(user);
    const before = (await as(user).get('/api/v1/api-keys')).body.api_keys.find((k: { id: string }) => k.id === created.id);
    expect(before.last_used_at).to.equal(null);
    expect((await as({ key: created.key }).get('/api/v1/api-keys')).status).to.equal(200);
    let after: { last_used_at: string | null } | undefined;
    for (let i = 0; i < 20 && !after?.last_used_at; i++) {
      after = (await as(user).get('/api/v1/api-keys')).body.api_keys.find((k: { id: string }) => k.id === created.id);
      if (!after?.last_used_at) await new Promise((r) => setTimeout(r, 100));
    }
    expect(Date.parse(after!.last_used_at!)).to.be.closeTo(Date.now(), 60_000);
  });

  it('refuses a blank name, an unknown environment and extra fields with 400', async () => {
    const user = await createTestUser(stack);
    for (const body of [{ name: '   ' }, { name: '' }, { name: 'x'.repeat(101) }, { name: 'ok', environment: 'staging' }, { name: 'ok', scopes: ['admin'] }, {}]) {
      const res = await as(user).post('/api/v1/api-keys', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
    }
  });

  it('renames a key and answers the key record', async () => {
    const user = await createTestUser(stack);
    const created = await createKey(user);
    const res = await as(user).patch(`/api/v1/api-keys/${created.id}`, { name: 'Renamed' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: created.id, name: 'Renamed', key_prefix: created.key_prefix });
    expect(res.body).not.to.have.property('key');
    expect((await as(user).patch(`/api/v1/api-keys/${created.id}`, {})).status).to.equal(400);
  });

  it("answers another account's key exactly like a missing one, and a malformed id with 400", async () => {
    const owner = await createTestUser(stack);
    const stranger = await createTestUser(stack);
    const created = await createKey(owner);
    const paths: Array<[string, string, unknown?]> = [
      ['PATCH', '', { name: 'x' }],
      ['DELETE', ''],
      ['POST', '/regenerate'],
      ['GET', '/decrypt'],
      ['GET', '/limits'],
      ['PUT', '/limits', { request_limit: 5 }],
      ['DELETE', '/limits'],
      ['GET', '/usage'],
      ['GET', '/usage/by-tier'],
      ['GET', '/usage/errors'],
      ['GET', '/usage/requests'],
      ['GET', '/usage/timeseries'],
    ];
    const api = apiClient(stack.baseUrl);
    const auth = { Authorization: `Bearer ${stranger.token}` };
    for (const [method, suffix, body] of paths) {
      const theirs = await api.call(method, `/api/v1/api-keys/${created.id}${suffix}`, body, auth);
      const missing = await api.call(method, `/api/v1/api-keys/${UNKNOWN_ID}${suffix}`, body, auth);
      expect(theirs.status, `${method} ${suffix}`).to.equal(404);
      expect(theirs.body.error).to.equal('NOT_FOUND');
      expect(theirs.body.message.replace(created.id, 'ID')).to.equal(missing.body.message.replace(UNKNOWN_ID, 'ID'));
      const malformed = await api.call(method, `/api/v1/api-keys/not-a-uuid${suffix}`, body, auth);
      expect(malformed.status, `${method} ${suffix}`).to.equal(400);
      expect(malformed.body.error).to.equal('VALIDATION_ERROR');
    }
    // The owner's key is untouched.
    expect((await as(owner).get(`/api/v1/api-keys/${created.id}/limits`)).status).to.equal(200);
  });

  it('revokes a key: 204, gone from the list, and the key answers 401 INVALID_API_KEY on its next request', async () => {
    const user = await createTestUser(stack);
    const created = await createKey(user);
    expect((await as({ key: created.key }).get('/api/v1/api-keys')).status).to.equal(200);
    const res = await as(user).delete(`/api/v1/api-keys/${created.id}`);
    expect(res.status).to.equal(204);
    expect(res.body).to.equal('');
    const next = await as({ key: created.key }).get('/api/v1/api-keys');
    expect(next.status).to.equal(401);
    expect(next.body.error).to.equal('INVALID_API_KEY');
    const list = await as(user).get('/api/v1/api-keys');
    expect(list.body.api_keys.map((k: { id: string }) => k.id)).not.to.include(created.id);
    expect((await as(user).delete(`/api/v1/api-keys/${created.id}`)).status).to.equal(404);
  });

  it('lets a key revoke itself', async () => {
    const user = await createTestUser(stack);
    const created = await createKey(user);
    expect((await as({ key: created.key }).delete(`/api/v1/api-keys/${created.id}`)).status).to.equal(204);
    expect((await as({ key: created.key }).get('/api/v1/api-keys')).status).to.equal(401);
  });

  it('regenerates a key under the same id: the old secret stops at once, the new one works', async () => {
    const user = await createTestUser(stack);
    const created = await createKey(user, { name: 'rotating', environment: 'test' });
    expect((await as({ key: created.key }).get('/api/v1/api-keys')).status).to.equal(200);
    const res = await as(user).post(`/api/v1/api-keys/${created.id}/regenerate`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: created.id, name: 'rotating', environment: 'test' });
    expect(res.body.key).to.match(/^sk_test_/);
    expect(res.body.key).not.to.equal(created.key);
    expect(res.body.key_prefix).to.equal(res.body.key.slice(0, 12));
    const old = await as({ key: created.key }).get('/api/v1/api-keys');
    expect(old.status).to.equal(401);
    expect(old.body.error).to.equal('INVALID_API_KEY');
    expect((await as({ key: res.body.key }).get('/api/v1/api-keys')).status).to.equal(200);
  });

  it('reveals a key to its owner and writes who, which key, when and from where to the audit log, never the key', async () => {
    const user = await createTestUser(stack);
    const created = await createKey(user);
    const res = await apiClient(stack.baseUrl).get(`/api/v1/api-keys/${created.id}/decrypt`, {
      Authorization: `Bearer ${user.token}`,
      'X-Request-Id': 'req_decrypt_audit_1',
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ key: created.key });
    const audit = await stack.pool.query('SELECT * FROM api_key_decrypt_audit WHERE api_key_id = $1', [created.id]);
    expect(audit.rows).to.have.length(1);
    const row = audit.rows[0];
    expect(row).to.include({ account_id: user.accountId, actor_user_id: user.userId, actor_api_key_id: null, request_id: 'req_decrypt_audit_1' });
    expect(row.client_ip).to.match(/127\.0\.0\.1/);
    expect(Date.now() - new Date(row.created_at).getTime()).to.be.below(60_000);
    expect(JSON.stringify(row)).not.to.contain(created.key.slice(8));
  });

  it('lets an API key reveal only itself, with 403 for any other key', async () => {
    const user = await createTestUser(stack);
    const other = await createKey(user);
    const self = await as({ key: user.key }).get(`/api/v1/api-keys/${other.id}/decrypt`);
    expect(self.status).to.equal(403);
    expect(self.body.error).to.equal('FORBIDDEN');
    expect(JSON.stringify(self.body)).not.to.contain(other.key);
    const own = await as({ key: other.key }).get(`/api/v1/api-keys/${other.id}/decrypt`);
    expect(own.status).to.equal(200);
    expect(own.body.key).to.equal(other.key);
    const audit = await stack.pool.query('SELECT actor_api_key_id FROM api_key_decrypt_audit WHERE api_key_id = $1', [other.id]);
    expect(audit.rows.map((r) => r.actor_api_key_id)).to.deep.equal([other.id]);
  });

  it("manages an organization's keys with X-Organization-Id: members read, owners and admins manage and reveal", async () => {
    const owner = await createTestUser(stack, { microcents: USD });
    const member = await createTestUser(stack);
    const outsider = await createTestUser(stack);
    const org = (await as(owner).post('/api/v1/organizations', { name: 'Keys Inc' })).body as { id: string; account_id: string };
    expect((await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: member.email })).status).to.equal(201);

    const created = await as(owner, org.id).post('/api/v1/api-keys', { name: 'org key' });
    expect(created.status).to.equal(201);
    const row = await stack.pool.query('SELECT account_id FROM api_keys WHERE id = $1', [created.body.id]);
    expect(row.rows[0].account_id).to.equal(org.account_id);

    const listed = await as(member, org.id).get('/api/v1/api-keys');
    expect(listed.status).to.equal(200);
    expect(listed.body.api_keys.map((k: { id: string }) => k.id)).to.deep.equal([created.body.id]);
    expect((await as(member).get('/api/v1/api-keys')).body.api_keys.map((k: { id: string }) => k.id)).not.to.include(created.body.id);

    for (const res of [
      await as(member, org.id).post('/api/v1/api-keys', { name: 'nope' }),
      await as(member, org.id).delete(`/api/v1/api-keys/${created.body.id}`),
      await as(member, org.id).get(`/api/v1/api-keys/${created.body.id}/decrypt`),
    ]) {
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('FORBIDDEN');
    }
    expect((await as(outsider, org.id).get('/api/v1/api-keys')).status).to.equal(404);
    expect((await as(owner, org.id).get(`/api/v1/api-keys/${created.body.id}/decrypt`)).body.key).to.equal(created.body.key);
    // A key of the organization's account acts on it, with or without the header.
    expect((await as({ key: created.body.key }, org.id).get('/api/v1/api-keys')).body.total).to.equal(1);
  });

  it('sets, reads and removes limits', async () => {
    const user = await createTestUser(stack);
    const created = await createKey(user, { name: 'limited' });
    const none = await as(user).get(`/api/v1/api-keys/${created.id}/limits`);
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.equal({ api_key_id: created.id, api_key_name: 'limited', limits: null, has_limits: false });

    const set = await as(user).put(`/api/v1/api-keys/${created.id}/limits`, { budget_limit_microcents: 5_000, request_limit: 100, reset_period: 'weekly' });
    expect(set.status).to.equal(200);
    expect(set.body).to.deep.include({ api_key_id: created.id, api_key_name: 'limited', has_limits: true });
    expect(set.body.limits).to.include({ budget_limit_microcents: 5_000, request_limit: 100, reset_period: 'weekly', enabled: true, spent_microcents: 0, request_count: 0 });
    const weekStart = new Date(set.body.limits.current_period_start);
    expect(weekStart.getUTCDay()).to.equal(1);
    expect(weekStart.getUTCHours() + weekStart.getUTCMinutes()).to.equal(0);

    const monthly = await as(user).put(`/api/v1/api-keys/${created.id}/limits`, { request_limit: 10 });
    expect(monthly.body.limits).to.include({ budget_limit_microcents: null, request_limit: 10, reset_period: 'monthly' });
    expect(new Date(monthly.body.limits.current_period_start).getUTCDate()).to.equal(1);
    expect((await as(user).get(`/api/v1/api-keys/${created.id}/limits`)).body).to.deep.equal(monthly.body);

    for (const body of [{}, { request_limit: -1 }, { request_limit: 1.5 }, { request_limit: 1, reset_period: 'yearly' }, { budget_limit_microcents: '5' }]) {
      const bad = await as(user).put(`/api/v1/api-keys/${created.id}/limits`, body);
      expect(bad.status, JSON.stringify(body)).to.equal(400);
    }

    const removed = await as(user).delete(`/api/v1/api-keys/${created.id}/limits`);
    expect(removed.status).to.equal(200);
    expect(removed.body).to.deep.equal({ status: 'ok' });
    expect((await as(user).get(`/api/v1/api-keys/${created.id}/limits`)).body.has_limits).to.equal(false);
    expect((await as(user).delete(`/api/v1/api-keys/${created.id}/limits`)).status).to.equal(404);
  });

  it('answers 401 without a credential on every key route', async () => {
    const api = apiClient(stack.baseUrl);
    for (const [method, path] of [
      ['GET', '/api/v1/api-keys'],
      ['POST', '/api/v1/api-keys'],
      ['GET', `/api/v1/api-keys/${UNKNOWN_ID}/usage`],
    ] as const) {
      const res = await api.call(method, path, method === 'POST' ? { name: 'x' } : undefined);
      expect(res.status).to.equal(401);
    }
  });
});
