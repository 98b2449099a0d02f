import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { AuthorizationCode, ClientCredentials, type ModuleOptions } from 'simple-oauth2';
import { digestCode } from '../../control-plane/oauth/codes.js';
import { add, remove, type AddedClient } from '../../deploy/admin/oauth-clients.js';
import { apiClient } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';
import { createTestUser, type TestUser } from '../support/users.js';

const UNKNOWN_JOB = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const PARTNER_REDIRECT = 'https://n8n.partner.example/rest/oauth2-credential/callback';

type AuthorizationMethod = 'body' | 'header';
type BodyFormat = 'form' | 'json';

interface OAuthFailure {
  status: number;
  body: { error: string; error_description: string; message: string; request_id: string };
  headers: Record<string, string | string[] | undefined>;
}

describe('OAuth 2.0 authorization-code flow', function () {
  this.timeout(60_000);
  let stack: TestStack;
  /** Every secret, code and key the suite handled: none may appear in the processes' output. */
  const secrets: string[] = [];

  before(async () => {
    stack = await getStack();
  });

  const redirectUri = () => `${stack.baseUrl}/oauth/callback`;

  function authorize(user: TestUser, body: Record<string, unknown>) {
    return apiClient(stack.baseUrl).post('/api/v1/oauth/authorize', body, { Authorization: `Bearer ${user.token}` });
  }

  async function codeFor(user: TestUser, client: AddedClient, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await authorize(user, { client_id: client.clientId, redirect_uri: redirectUri(), state: 'xyz', ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    secrets.push(res.body.code);
    return res.body.code as string;
  }

  /** A real OAuth client library, configured as an integration would configure it. */
  function library(client: { clientId: string; clientSecret: string }, authorization: AuthorizationMethod = 'body', bodyFormat: BodyFormat = 'form') {
    const config: ModuleOptions = {
      client: { id: client.clientId, secret: client.clientSecret },
      auth: { tokenHost: stack.baseUrl, tokenPath: '/api/v1/oauth/token' },
      options: { authorizationMethod: authorization, bodyFormat },
    };
    return { code: new AuthorizationCode(config), credentials: new ClientCredentials(config) };
  }

  async function exchange(client: AddedClient, code: string, opts: { authorization?: AuthorizationMethod; bodyFormat?: BodyFormat; params?: Record<string, string> } = {}) {
    const token = await library(client, opts.authorization, opts.bodyFormat).code.getToken({ code, redirect_uri: redirectUri(), ...opts.params });
    const key = token.token['access_token'] as string;
    secrets.push(key);
    return token.token as { access_token: string; token_type: string; scope: string };
  }

  /** The answer of a refused call the library made. */
  async function failure(call: Promise<unknown>): Promise<OAuthFailure> {
    const err = (await call.then(
      () => expect.fail('the call succeeded'),
      (e: unknown) => e,
    )) as { output?: { statusCode: number }; data?: { payload: OAuthFailure['body']; res: { headers: OAuthFailure['headers'] } } };
    expect(err.output, String(err)).to.be.an('object');
    return { status: err.output!.statusCode, body: err.data!.payload, headers: err.data!.res.headers };
  }

  function expectOAuthError(res: OAuthFailure, status: number, error: string): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error).to.equal(error);
    expect(res.body.error_description).to.be.a('string').and.not.empty;
    expect(res.body.message).to.equal(res.body.error_description);
    expect(res.body.request_id).to.be.a('string').and.not.empty;
    expect(res.headers['cache-control']).to.equal('no-store');
  }

  /** How the key answers on a key route: 404 for an unknown job means it authenticated. */
  async function keyStatus(key: string): Promise<{ status: number; error: string }> {
    const res = await apiClient(stack.baseUrl, key).get(`/api/v1/jobs/${UNKNOWN_JOB}`);
    return { status: res.status, error: res.body.error };
  }

  function postToken(body: string, headers: Record<string, string>) {
    return fetch(`${stack.baseUrl}/api/v1/oauth/token`, { method: 'POST', body, headers });
  }

  describe('with no client registered', () => {
    before(async () => {
      await stack.pool.query('UPDATE oauth_clients SET revoked_at = now() WHERE revoked_at IS NULL');
    });

    it('answers 503 OAUTH_NOT_CONFIGURED on both steps', async () => {
      const user = await createTestUser(stack);
      const res = await authorize(user, { client_id: 'anything', redirect_uri: redirectUri(), state: 's' });
      expect(res.status).to.equal(503);
      expect(res.body).to.include({ error: 'OAUTH_NOT_CONFIGURED', message: 'OAuth integration is not configured' });
      const token = await failure(library({ clientId: 'anything', clientSecret: 'x'.repeat(40) }).code.getToken({ code: 'c', redirect_uri: redirectUri() }));
      expectOAuthError(token, 503, 'OAUTH_NOT_CONFIGURED');
      expect(token.body.error_description).to.equal('OAuth integration is not configured');
    });
  });

  describe('with registered clients', () => {
    let client: AddedClient;
    let other: AddedClient;

    before(async () => {
      client = await add(stack.pool, { name: 'Workflow Tool', redirectUris: ['n8n.partner.example'] });
      other = await add(stack.pool, { name: 'Other Tool' });
      secrets.push(client.clientSecret, other.clientSecret);
    });

    describe('POST /api/v1/oauth/authorize', () => {
      it('answers a single-use code and the state unchanged, stored only as a digest for 5 minutes', async () => {
        const user = await createTestUser(stack);
        const state = 'opaque state / with spaces & symbols ✓';
        const res = await authorize(user, { client_id: client.clientId, redirect_uri: redirectUri(), state, source: 'n8n' });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body).to.have.keys('code', 'state');
        expect(res.body.state).to.equal(state);
        expect(res.body.code).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(res.headers.get('cache-control')).to.equal('no-store');
        secrets.push(res.body.code);
        const row = await stack.pool.query(
          `SELECT client_id, user_id, account_id, redirect_uri, scope, source, extract(epoch FROM expires_at - created_at) AS ttl
             FROM oauth_codes WHERE code_digest = $1`,
          [digestCode(res.body.code)],
        );
        expect(row.rows[0]).to.include({ client_id: client.clientId, user_id: user.userId, account_id: user.accountId, redirect_uri: redirectUri(), scope: 'scrape', source: 'n8n' });
        expect(Number(row.rows[0].ttl)).to.equal(300);
        const plain = await stack.pool.query('SELECT count(*)::int AS n FROM oauth_codes c WHERE strpos(row_to_json(c)::text, $1) > 0', [res.body.code]);
        expect(plain.rows[0].n).to.equal(0);
      });

      it('takes a session token, not an API key', async () => {
        const user = await createTestUser(stack);
        const res = await apiClient(stack.baseUrl, user.key).post('/api/v1/oauth/authorize', { client_id: client.clientId, redirect_uri: redirectUri(), state: 's' });
        expect(res.status).to.equal(401);
        expect(res.body.error).to.equal('INVALID_SESSION_TOKEN');
      });

      it('refuses an unknown or removed client with 400 UNKNOWN_OAUTH_CLIENT', async () => {
        const user = await createTestUser(stack);
        const unknown = await authorize(user, { client_id: 'no-such-client', redirect_uri: redirectUri(), state: 's' });
        expect(unknown.status).to.equal(400);
        expect(unknown.body.error).to.equal('UNKNOWN_OAUTH_CLIENT');
        const gone = await add(stack.pool, { name: 'Short-lived' });
        await remove(stack.pool, { clientId: gone.clientId });
        const removed = await authorize(user, { client_id: gone.clientId, redirect_uri: redirectUri(), state: 's' });
        expect(removed.body.error).to.equal('UNKNOWN_OAUTH_CLIENT');
      });

      it('sends codes only to allowed redirect URIs: own host, loopback outside production, listed hosts', async () => {
        const user = await createTestUser(stack);
        const at = (redirect_uri: string, c = client) => authorize(user, { client_id: c.clientId, redirect_uri, state: 's' });
        for (const allowed of [redirectUri(), 'http://localhost:5678/rest/oauth2-credential/callback', PARTNER_REDIRECT]) {
          const res = await at(allowed);
          expect(res.status, `${allowed}: ${JSON.stringify(res.body)}`).to.equal(200);
          secrets.push(res.body.code);
        }
        for (const refused of ['https://evil.example/callback', 'http://n8n.partner.example/callback', 'https://n8n.partner.example.evil.example/cb', `${redirectUri()}#fragment`, 'not a url']) {
          const res = await at(refused);
          expect(res.status, refused).to.equal(400);
          expect(res.body.error, refused).to.equal('REDIRECT_URI_NOT_ALLOWED');
        }
        // The partner host is on the first client's own list only.
        expect((await at(PARTNER_REDIRECT, other)).body.error).to.equal('REDIRECT_URI_NOT_ALLOWED');
      });

      it('answers 400 VALIDATION_ERROR for a missing state, another scope or a half-given PKCE challenge', async () => {
        const user = await createTestUser(stack);
        const base = { client_id: client.clientId, redirect_uri: redirectUri(), state: 's' };
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ client_id: client.clientId, redirect_uri: redirectUri() }, 'state'],
          [{ ...base, scope: 'admin' }, 'scope'],
          [{ ...base, code_challenge: 'a'.repeat(43) }, 'code_challenge_method'],
          [{ ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'code_challenge_method'],
          [{ ...base, source: 'bad\u0007source' }, 'source'],
        ];
        for (const [body, field] of cases) {
          const res = await authorize(user, body);
          expect(res.status, JSON.stringify(body)).to.equal(400);
          expect(res.body.error).to.equal('VALIDATION_ERROR');
          expect(res.body.details.fields.map((f: { field: string }) => f.field), JSON.stringify(body)).to.include(field);
        }
      });
    });

    describe('POST /api/v1/oauth/token', () => {
      it('gives a working sk_live_ key of the authorizing account (client_secret_post, form body)', async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client, { source: 'n8n' });
        const token = await exchange(client, code);
        expect(token).to.include({ token_type: 'bearer', scope: 'scrape' });
        expect(token.access_token).to.match(/^sk_live_[A-Za-z0-9]{32}$/);
        expect(await keyStatus(token.access_token)).to.deep.equal({ status: 404, error: 'NOT_FOUND' });
        const key = await stack.pool.query(
          'SELECT k.name, k.account_id, k.created_by_user_id, k.scopes, k.revoked_at FROM api_keys k JOIN oauth_issued_keys o ON o.api_key_id = k.id WHERE o.account_id = $1',
          [user.accountId],
        );
        expect(key.rows).to.have.length(1);
        expect(key.rows[0]).to.deep.include({ name: 'n8n Integration', account_id: user.accountId, created_by_user_id: user.userId, scopes: ['scrape'], revoked_at: null });
      });

      it('accepts client_secret_basic with a JSON body, and names the key after the source', async () => {
        const user = await createTestUser(stack);
        const token = await exchange(client, await codeFor(user, client, { source: 'zapier' }), { authorization: 'header', bodyFormat: 'json' });
        expect(await keyStatus(token.access_token)).to.deep.include({ status: 404 });
        const names = await stack.pool.query('SELECT name FROM api_keys WHERE account_id = $1 AND created_by_user_id IS NOT NULL', [user.accountId]);
        expect(names.rows.map((r) => r.name)).to.deep.equal(['OAuth (zapier)']);
      });

      it('accepts client_secret_basic with a form body, and names the key after the client without a source', async () => {
        const user = await createTestUser(stack);
        const token = await exchange(client, await codeFor(user, client), { authorization: 'header', bodyFormat: 'form' });
        expect(await keyStatus(token.access_token)).to.deep.include({ status: 404 });
        const names = await stack.pool.query('SELECT name FROM api_keys WHERE account_id = $1 AND created_by_user_id IS NOT NULL', [user.accountId]);
        expect(names.rows.map((r) => r.name)).to.deep.equal(['OAuth (Workflow Tool)']);
      });

      it('answers with Cache-Control: no-store, and takes client_secret_post in JSON too', async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client);
        const res = await postToken(
          JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), client_id: client.clientId, client_secret: client.clientSecret }),
          { 'content-type': 'application/json' },
        );
        const body = (await res.json()) as { access_token: string };
        expect(res.status, JSON.stringify(body)).to.equal(200);
        secrets.push(body.access_token);
        expect(res.headers.get('cache-control')).to.equal('no-store');
        expect(res.headers.get('pragma')).to.equal('no-cache');
      });

      it('refuses a replayed code with invalid_grant', async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client);
        await exchange(client, code);
        expectOAuthError(await failure(exchange(client, code)), 400, 'invalid_grant');
      });

      it('refuses an expired code with invalid_grant', async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client);
        await stack.pool.query(`UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE code_digest = $1`, [digestCode(code)]);
        expectOAuthError(await failure(exchange(client, code)), 400, 'invalid_grant');
      });

      it('refuses a redirect_uri other than the authorized one with invalid_grant, and the code is spent', async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client);
        const mismatch = await failure(library(client).code.getToken({ code, redirect_uri: `${redirectUri()}/other` }));
        expectOAuthError(mismatch, 400, 'invalid_grant');
        expect(mismatch.body.error_description).to.contain('redirect_uri');
        expectOAuthError(await failure(exchange(client, code)), 400, 'invalid_grant');
      });

      it("refuses another client's code with invalid_grant, leaving it for its own client", async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client);
        expectOAuthError(await failure(exchange(other, code)), 400, 'invalid_grant');
        expect(await exchange(client, code)).to.include({ token_type: 'bearer' });
      });

      for (const authorization of ['body', 'header'] as const) {
        it(`refuses a wrong secret with 401 invalid_client and WWW-Authenticate (${authorization === 'body' ? 'client_secret_post' : 'client_secret_basic'})`, async () => {
          const user = await createTestUser(stack);
          const code = await codeFor(user, client);
          const wrongSecret = `wrong-${randomBytes(24).toString('hex')}`;
          const res = await failure(library({ clientId: client.clientId, clientSecret: wrongSecret }, authorization).code.getToken({ code, redirect_uri: redirectUri() }));
          expectOAuthError(res, 401, 'invalid_client');
          expect(res.headers['www-authenticate']).to.match(/^Basic realm=/);
          expect(JSON.stringify(res.body)).not.to.contain(wrongSecret);
          // A failed client authentication leaves the code unspent.
          expect(await exchange(client, code)).to.include({ scope: 'scrape' });
        });
      }

      it('refuses an unknown client_id with 401 invalid_client', async () => {
        const res = await failure(library({ clientId: 'no-such-client', clientSecret: client.clientSecret }).code.getToken({ code: 'c', redirect_uri: redirectUri() }));
        expectOAuthError(res, 401, 'invalid_client');
      });

      it('refuses other grant types with 400 unsupported_grant_type', async () => {
        const res = await failure(library(client).credentials.getToken({ scope: 'scrape' }));
        expectOAuthError(res, 400, 'unsupported_grant_type');
      });

      it('answers invalid_request for a missing code, a repeated parameter or two client authentications', async () => {
        const form = { 'content-type': 'application/x-www-form-urlencoded' };
        const creds = `client_id=${encodeURIComponent(client.clientId)}&client_secret=${encodeURIComponent(client.clientSecret)}`;
        const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
        const cases: Array<[string, Record<string, string>]> = [
          [`grant_type=authorization_code&redirect_uri=x&${creds}`, form],
          [`grant_type=authorization_code&code=a&code=b&redirect_uri=x&${creds}`, form],
          [`redirect_uri=x&code=a&${creds}`, form],
          [`grant_type=authorization_code&code=a&redirect_uri=x&${creds}`, { ...form, authorization: basic }],
          [`grant_type=authorization_code&code=a&redirect_uri=x&client_id=a%00b&client_secret=s`, form],
        ];
        for (const [body, headers] of cases) {
          const res = await postToken(body, headers);
          const json = (await res.json()) as OAuthFailure['body'];
          expect(res.status, `${body}: ${JSON.stringify(json)}`).to.equal(400);
          expect(json.error, body).to.equal('invalid_request');
          expect(json.error_description, body).to.be.a('string').and.not.empty;
          expect(JSON.stringify(json), body).not.to.contain(client.clientSecret);
        }
      });

      it('refuses a body in another media type with 415, still with error_description and no-store', async () => {
        const res = await postToken('grant_type=authorization_code', { 'content-type': 'text/plain' });
        expect(res.status).to.equal(415);
        const json = (await res.json()) as OAuthFailure['body'];
        expect(json.error).to.equal('UNSUPPORTED_MEDIA_TYPE');
        expect(json.message).to.contain('application/x-www-form-urlencoded');
        expect(json.error_description).to.equal(json.message);
        expect(res.headers.get('cache-control')).to.equal('no-store');
      });

      it('gives exactly one key for two concurrent redemptions of one code', async () => {
        const user = await createTestUser(stack);
        const code = await codeFor(user, client);
        const outcomes = await Promise.allSettled([exchange(client, code), exchange(client, code, { authorization: 'header' }), exchange(client, code, { bodyFormat: 'json' })]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
        const issued = await stack.pool.query('SELECT count(*)::int AS n FROM oauth_issued_keys WHERE account_id = $1', [user.accountId]);
        expect(issued.rows[0].n).to.equal(1);
        for (const o of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
          expect((o.reason as { data: { payload: { error: string } } }).data.payload.error).to.equal('invalid_grant');
        }
      });

      it("revokes an integration's previous key at its next exchange, at once, and leaves other integrations' keys", async () => {
        const user = await createTestUser(stack);
        const first = await exchange(client, await codeFor(user, client, { source: 'n8n' }));
        const zapier = await exchange(client, await codeFor(user, client, { source: 'zapier' }));
        const viaOther = await exchange(other, await codeFor(user, other, { source: 'n8n' }));
        // Used once, so the control plane holds it in its authentication cache.
        expect((await keyStatus(first.access_token)).status).to.equal(404);
        const second = await exchange(client, await codeFor(user, client, { source: 'n8n' }));
        expect(await keyStatus(first.access_token)).to.deep.equal({ status: 401, error: 'INVALID_API_KEY' });
        expect((await keyStatus(second.access_token)).status).to.equal(404);
        expect((await keyStatus(zapier.access_token)).status).to.equal(404);
        expect((await keyStatus(viaOther.access_token)).status).to.equal(404);
        // The user's own key is no integration's.
        expect((await keyStatus(user.key)).status).to.equal(404);
      });

      it('leaves one live key when two exchanges of one integration race', async () => {
        const user = await createTestUser(stack);
        const codes = [await codeFor(user, client, { source: 'race' }), await codeFor(user, client, { source: 'race' })];
        const tokens = await Promise.all(codes.map((code) => exchange(client, code)));
        const statuses = await Promise.all(tokens.map((t) => keyStatus(t.access_token)));
        expect(statuses.map((s) => s.status).sort()).to.deep.equal([401, 404]);
      });

      describe('PKCE (S256)', () => {
        const verifier = randomBytes(48).toString('base64url');
        const challenge = createHash('sha256').update(verifier).digest('base64url');

        it('issues the key for the right code_verifier', async () => {
          const user = await createTestUser(stack);
          const code = await codeFor(user, client, { code_challenge: challenge, code_challenge_method: 'S256' });
          const token = await exchange(client, code, { params: { code_verifier: verifier } });
          expect((await keyStatus(token.access_token)).status).to.equal(404);
        });

        it('refuses a wrong or missing code_verifier with invalid_grant', async () => {
          const user = await createTestUser(stack);
          const wrong = await codeFor(user, client, { code_challenge: challenge, code_challenge_method: 'S256' });
          expectOAuthError(await failure(exchange(client, wrong, { params: { code_verifier: randomBytes(48).toString('base64url') } })), 400, 'invalid_grant');
          const missing = await codeFor(user, client, { code_challenge: challenge, code_challenge_method: 'S256' });
          expectOAuthError(await failure(exchange(client, missing)), 400, 'invalid_grant');
        });

        it('refuses a code_verifier for a code issued without a challenge', async () => {
          const user = await createTestUser(stack);
          const code = await codeFor(user, client);
          expectOAuthError(await failure(exchange(client, code, { params: { code_verifier: verifier } })), 400, 'invalid_grant');
        });
      });

      it('issues the key to the organization the user acted for with X-Organization-Id', async () => {
        const user = await createTestUser(stack);
        const org = await apiClient(stack.baseUrl).post('/api/v1/organizations', { name: 'Integrators' }, { Authorization: `Bearer ${user.token}` });
        expect(org.status, JSON.stringify(org.body)).to.equal(201);
        const res = await apiClient(stack.baseUrl).post(
          '/api/v1/oauth/authorize',
          { client_id: client.clientId, redirect_uri: redirectUri(), state: 's', source: 'n8n' },
          { Authorization: `Bearer ${user.token}`, 'X-Organization-Id': org.body.id },
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const token = await exchange(client, res.body.code);
        const owner = await stack.pool.query('SELECT account_id FROM api_keys WHERE key_prefix = $1', [token.access_token.slice(0, 12)]);
        expect(owner.rows.map((r) => r.account_id)).to.deep.equal([org.body.account_id]);
      });

      it('stops exchanging for a removed client', async () => {
        const user = await createTestUser(stack);
        const leaving = await add(stack.pool, { name: 'Leaving' });
        const code = await codeFor(user, leaving);
        await remove(stack.pool, { clientId: leaving.clientId });
        expectOAuthError(await failure(exchange(leaving, code)), 401, 'invalid_client');
      });
    });

    // Runs after the suites above: mocha runs a block's own tests before its nested blocks.
    describe('after the flows above', () => {
      it('kept client secrets, codes and keys out of every process output', () => {
        expect(secrets.length).to.be.above(20);
        const output = stack.output.join('\n');
        for (const secret of secrets) expect(output.includes(secret), 'a secret in the process output').to.equal(false);
      });
    });
  });
});
