import { expect } from 'chai';
import { createApiKey } from '../../control-plane/accounts/api-keys.js';
import { applyLedgerEntry } from '../../control-plane/billing/ledger.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

const USD = 1_000_000;
const UNKNOWN_ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('accounts: organizations and members', function () {
  this.timeout(60_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });

  /** Calls as a user's session, optionally acting for an organization. */
  const as = (user: TestUser, organizationId?: string) => {
    const headers = { Authorization: `Bearer ${user.token}`, ...(organizationId ? { 'X-Organization-Id': organizationId } : {}) };
    const api = apiClient(stack.baseUrl);
    return {
      get: (path: string) => api.get(path, headers),
      post: (path: string, body: unknown) => api.post(path, body, headers),
      delete: (path: string) => api.call('DELETE', path, undefined, headers),
    };
  };

  async function organizationOf(owner: TestUser, name = 'Acme') {
    const res = await as(owner).post('/api/v1/organizations', { name });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { id: string; account_id: string; name: string; role: string; member_count: number };
  }

  it('creates an organization with its own account, its creator as owner', async () => {
    const owner = await createTestUser(stack, { microcents: 2 * USD });
    const org = await organizationOf(owner, 'Acme Research');
    expect(org).to.include({ name: 'Acme Research', role: 'owner', member_count: 1 });
    expect(org.account_id).not.to.equal(owner.accountId);
    const list = await as(owner).get('/api/v1/organizations');
    expect(list.body.total).to.equal(1);
    expect(list.body.organizations[0]).to.deep.equal({ ...org });
    expect((await as(owner).get(`/api/v1/organizations/${org.id}`)).body).to.deep.equal(org);
    const members = await as(owner).get(`/api/v1/organizations/${org.id}/members`);
    expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).to.deep.equal([[owner.email, 'owner']]);
  });

  it('lets a member act on the organization account with X-Organization-Id', async () => {
    const owner = await createTestUser(stack, { microcents: 1 * USD });
    const member = await createTestUser(stack, { microcents: 3 * USD });
    const org = await organizationOf(owner);
    await applyLedgerEntry(stack.pool, { accountId: org.account_id, kind: 'deposit', amountMicrocents: 70 * USD, reference: `test-deposit:${org.id}` });
    const added = await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: member.email.toUpperCase() });
    expect(added.status).to.equal(201);
    expect(added.body).to.include({ user_id: member.userId, email: member.email, role: 'member' });

    const personal = await as(member).get('/api/v1/auth/me');
    expect(personal.body.account).to.include({ id: member.accountId, balance_microcents: 3 * USD });
    expect(personal.body.organizations).to.deep.equal([{ id: org.id, name: org.name, role: 'member' }]);

    const scoped = await as(member, org.id).get('/api/v1/auth/me');
    expect(scoped.status).to.equal(200);
    expect(scoped.body.account).to.include({ id: org.account_id, balance_microcents: 70 * USD, balance_usd: 70 });
    expect(scoped.body.tier.id).to.equal('growth');
    expect(scoped.body.user.id).to.equal(member.userId);
    expect(scoped.body.acting_organization).to.deep.equal({ id: org.id, name: org.name, role: 'member' });
  });

  it("answers /auth/me for an organization's own key with null user fields and the organization", async () => {
    const owner = await createTestUser(stack);
    const org = await organizationOf(owner, 'Keyholder');
    const { key } = await createApiKey(stack.pool, { accountId: org.account_id, name: 'org key', environment: 'live', masterKeyHex: stack.config.masterKeyHex });
    const me = await apiClient(stack.baseUrl, key).get('/api/v1/auth/me');
    expect(me.status).to.equal(200);
    expect(me.body.user).to.deep.equal({ id: null, email: null, role: null, created_at: null });
    expect(me.body.account.id).to.equal(org.account_id);
    expect(me.body.organizations).to.deep.equal([{ id: org.id, name: 'Keyholder', role: null }]);
    expect(me.body.acting_organization).to.deep.equal({ id: org.id, name: 'Keyholder', role: null });
    expect(me.body.credential).to.equal('api_key');
  });

  it('answers a non-member naming the organization with 404, exactly like an unknown one', async () => {
    const owner = await createTestUser(stack);
    const outsider = await createTestUser(stack);
    const org = await organizationOf(owner);
    const scoped = await as(outsider, org.id).get('/api/v1/auth/me');
    const unknown = await as(outsider, UNKNOWN_ID).get('/api/v1/auth/me');
    expect(scoped.status).to.equal(404);
    expect(scoped.body.error).to.equal('NOT_FOUND');
    expect(scoped.body.message).to.equal(unknown.body.message);
    for (const path of [`/api/v1/organizations/${org.id}`, `/api/v1/organizations/${org.id}/members`]) {
      const res = await as(outsider).get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body.error).to.equal('NOT_FOUND');
    }
    expect((await as(outsider).post(`/api/v1/organizations/${org.id}/members`, { email: outsider.email })).status).to.equal(404);
    expect((await as(outsider).get('/api/v1/organizations')).body).to.deep.equal({ organizations: [], total: 0 });
  });

  it('lets only owners and admins add members, and only the owner add admins', async () => {
    const owner = await createTestUser(stack);
    const [admin, member, newcomer, another] = await Promise.all([1, 2, 3, 4].map(() => createTestUser(stack)));
    const org = await organizationOf(owner);
    expect((await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: admin!.email, role: 'admin' })).body.role).to.equal('admin');
    expect((await as(admin!).post(`/api/v1/organizations/${org.id}/members`, { email: member!.email })).status).to.equal(201);

    const byMember = await as(member!).post(`/api/v1/organizations/${org.id}/members`, { email: newcomer!.email });
    expect(byMember.status).to.equal(403);
    expect(byMember.body.error).to.equal('FORBIDDEN');
    const adminByAdmin = await as(admin!).post(`/api/v1/organizations/${org.id}/members`, { email: another!.email, role: 'admin' });
    expect(adminByAdmin.status).to.equal(403);

    const again = await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: member!.email });
    expect(again.status).to.equal(409);
    expect(again.body.error).to.equal('CONFLICT');
    const nobody = await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: 'nobody-here@nowhere.example' });
    expect(nobody.status).to.equal(404);
    expect((await as(owner).get(`/api/v1/organizations/${org.id}`)).body.member_count).to.equal(3);
  });

  it('removes members by the rules: admins remove members, the owner stays, anyone may leave', async () => {
    const owner = await createTestUser(stack);
    const [admin, member, leaver] = await Promise.all([1, 2, 3].map(() => createTestUser(stack)));
    const org = await organizationOf(owner);
    await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: admin!.email, role: 'admin' });
    await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: member!.email });
    await as(owner).post(`/api/v1/organizations/${org.id}/members`, { email: leaver!.email });
    const path = (u: TestUser) => `/api/v1/organizations/${org.id}/members/${u.userId}`;

    expect((await as(member!).delete(path(admin!))).status).to.equal(403);
    expect((await as(admin!).delete(path(owner))).status).to.equal(403);
    expect((await as(owner).delete(path(owner))).status).to.equal(403);
    const removed = await as(admin!).delete(path(member!));
    expect(removed.status).to.equal(200);
    expect(removed.body).to.deep.equal({ status: 'ok' });
    expect((await as(leaver!).delete(path(leaver!))).status).to.equal(200);
    expect((await as(owner).delete(path(member!))).status).to.equal(404);

    // A removed member loses the organization at once.
    expect((await as(member!, org.id).get('/api/v1/auth/me')).status).to.equal(404);
    const members = await as(owner).get(`/api/v1/organizations/${org.id}/members`);
    expect(members.body.members.map((m: { user_id: string }) => m.user_id).sort()).to.deep.equal([owner.userId, admin!.userId].sort());
  });

  it('takes a session token, not an API key, on organization routes', async () => {
    const user = await createTestUser(stack);
    const res = await apiClient(stack.baseUrl, user.key).get('/api/v1/organizations');
    expect(res.status).to.equal(401);
  });

  for (const [what, method, path, body] of [
    ['a blank name', 'POST', '/api/v1/organizations', { name: '   ' }],
    ['a name over 100 characters', 'POST', '/api/v1/organizations', { name: 'n'.repeat(101) }],
    ['a missing name', 'POST', '/api/v1/organizations', {}],
    ['a malformed organization id', 'GET', '/api/v1/organizations/not-a-uuid', undefined],
    ['an unknown role', 'POST', `/api/v1/organizations/${UNKNOWN_ID}/members`, { email: 'a@b.example', role: 'owner' }],
    ['an invalid member e-mail', 'POST', `/api/v1/organizations/${UNKNOWN_ID}/members`, { email: 'nope' }],
    ['a malformed member id', 'DELETE', `/api/v1/organizations/${UNKNOWN_ID}/members/42`, undefined],
  ] as const) {
    it(`answers ${what} with 400 in the error envelope`, async () => {
      const user = await createTestUser(stack);
      const res = await apiClient(stack.baseUrl).call(method, path, body, { Authorization: `Bearer ${user.token}` });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('VALIDATION_ERROR');
      expect(res.body.request_id).to.be.a('string');
    });
  }
});
