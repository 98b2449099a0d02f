import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../../common/config.js';
import { createAccount } from '../../../control-plane/accounts/api-keys.js';
import { authenticateClient, digestClientSecret, loadConfiguredClients } from '../../../control-plane/oauth/clients.js';
import { consumeCode, issueCode, pkceChallenge, pkceVerifies } from '../../../control-plane/oauth/codes.js';
import { integrationKeyName } from '../../../control-plane/oauth/integration-keys.js';
import { CommandError, UsageError, type AdminContext } from '../../../deploy/admin/command.js';
import { add, list, oauthClientCommands, remove } from '../../../deploy/admin/oauth-clients.js';
import { getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

const SECRET = 'a-configured-secret-of-forty-characters!';

describe('OAuth clients, codes and key names', function () {
  this.timeout(60_000);
  let services: ControlPlaneServices;
  before(async () => {
    services = await getControlPlaneServices();
  });

  const uniqueId = () => `client-${randomUUID().slice(0, 8)}`;

  describe('TRAWL_OAUTH_CLIENTS', () => {
    it('is parsed into clients, with redirect_uris optional', () => {
      const config = loadConfig({
        TRAWL_OAUTH_CLIENTS: JSON.stringify([{ client_id: 'n8n', client_secret: SECRET, name: ' n8n ', redirect_uris: ['n8n.partner.example'] }, { client_id: 'zap', client_secret: SECRET, name: 'Zap' }]),
        TRAWL_OAUTH_REDIRECT_ALLOWLIST: 'a.example, *.b.example',
      });
      expect(config.oauth.clients).to.deep.equal([
        { client_id: 'n8n', client_secret: SECRET, name: 'n8n', redirect_uris: ['n8n.partner.example'] },
        { client_id: 'zap', client_secret: SECRET, name: 'Zap', redirect_uris: [] },
      ]);
      expect(config.oauth.redirectAllowlist).to.deep.equal(['a.example', '*.b.example']);
      expect(loadConfig({}).oauth).to.deep.equal({ clients: [], redirectAllowlist: [] });
    });

    it('refuses malformed entries without quoting a secret', () => {
      const cases: Array<[string, RegExp]> = [
        [JSON.stringify([{ client_id: 'n8n', client_secret: 'short-secret-value', name: 'n8n' }]), /client_secret must be at least 32/],
        [JSON.stringify([{ client_id: 'bad id', client_secret: SECRET, name: 'x' }]), /client_id/],
        [JSON.stringify([{ client_id: 'n8n', client_secret: SECRET, name: '' }]), /name/],
        [JSON.stringify([{ client_id: 'n8n', client_secret: SECRET, name: 'x', redirect_uris: 'a.example' }]), /redirect_uris/],
        [`[{"client_secret": "${SECRET}"`, /JSON array/],
      ];
      for (const [raw, message] of cases) {
        let thrown: Error | undefined;
        try {
          loadConfig({ TRAWL_OAUTH_CLIENTS: raw });
        } catch (err) {
          thrown = err as Error;
        }
        expect(thrown?.message, raw).to.match(message);
        expect(thrown!.message).not.to.contain('short-secret-value').and.not.to.contain(SECRET);
      }
    });

    it('registers its clients at start with the secret kept as a SHA-256 digest, and a later start replaces them', async () => {
      const id = uniqueId();
      await loadConfiguredClients(services.pool, [{ client_id: id, client_secret: SECRET, name: 'First', redirect_uris: [] }]);
      const row = await services.pool.query('SELECT name, secret_digest, row_to_json(c)::text AS everything FROM oauth_clients c WHERE client_id = $1', [id]);
      expect(row.rows[0].name).to.equal('First');
      expect(Buffer.compare(row.rows[0].secret_digest, digestClientSecret(SECRET))).to.equal(0);
      expect(row.rows[0].everything).not.to.contain(SECRET);
      expect(await authenticateClient(services.pool, id, SECRET)).to.include({ clientId: id, name: 'First' });

      await remove(services.pool, { clientId: id });
      const rotated = `${SECRET}-rotated`;
      await loadConfiguredClients(services.pool, [{ client_id: id, client_secret: rotated, name: 'Renamed', redirect_uris: ['x.example'] }]);
      expect(await authenticateClient(services.pool, id, SECRET)).to.equal(null);
      expect(await authenticateClient(services.pool, id, rotated)).to.include({ name: 'Renamed' }).and.to.have.deep.property('redirectUris', ['x.example']);
    });

    it('refuses at start a client whose redirect entry is malformed', async () => {
      let thrown: Error | undefined;
      await loadConfiguredClients(services.pool, [{ client_id: uniqueId(), client_secret: SECRET, name: 'x', redirect_uris: ['not a host'] }]).catch((err: Error) => {
        thrown = err;
      });
      expect(thrown?.message).to.match(/allow-list entry "not a host"/);
    });
  });

  describe('client authentication', () => {
    it('knows a client only by its right secret, and not once removed', async () => {
      const client = await add(services.pool, { name: 'Auth' });
      expect(await authenticateClient(services.pool, client.clientId, client.clientSecret)).to.include({ clientId: client.clientId });
      expect(await authenticateClient(services.pool, client.clientId, `${client.clientSecret}x`)).to.equal(null);
      expect(await authenticateClient(services.pool, client.clientId, '')).to.equal(null);
      expect(await authenticateClient(services.pool, 'no-such-client', client.clientSecret)).to.equal(null);
      await remove(services.pool, { clientId: client.clientId });
      expect(await authenticateClient(services.pool, client.clientId, client.clientSecret)).to.equal(null);
    });
  });

  describe('admin commands', () => {
    function context(): AdminContext & { lines: string[] } {
      const lines: string[] = [];
      return { pool: services.pool, config: services.config, masterKey: async () => services.config.masterKeyHex, print: (l) => lines.push(l), lines };
    }
    const command = (name: string) => oauthClientCommands.find((c) => c.name === name)!;

    it('adds a client with a generated id and a 43-character secret, shown once', async () => {
      const ctx = context();
      await command('oauth-clients add').run(ctx, { name: 'n8n cloud', redirect: ['n8n.partner.example', 'https://app.example/cb'] });
      const secretLine = ctx.lines.find((l) => l.startsWith('client_secret:'))!;
      const idLine = ctx.lines.find((l) => l.startsWith('client_id:'))!;
      const secret = secretLine.split(/\s+/)[1]!;
      const clientId = idLine.split(/\s+/)[1]!;
      expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(clientId).to.match(/^trawl_[0-9a-f]{16}$/);
      expect(await authenticateClient(services.pool, clientId, secret)).to.deep.include({ name: 'n8n cloud', redirectUris: ['n8n.partner.example', 'https://app.example/cb'] });

      const listing = context();
      await command('oauth-clients list').run(listing, {});
      expect(listing.lines.join('\n')).to.contain(clientId).and.to.contain('n8n cloud').and.not.to.contain(secret);
    });

    it('takes a chosen client id, and refuses one already registered, even removed', async () => {
      const clientId = uniqueId();
      expect((await add(services.pool, { name: 'Chosen', clientId })).clientId).to.equal(clientId);
      await remove(services.pool, { clientId });
      let thrown: unknown;
      await add(services.pool, { name: 'Again', clientId }).catch((err: unknown) => {
        thrown = err;
      });
      expect(thrown).to.be.instanceOf(CommandError);
    });

    it('refuses a malformed client id or redirect entry as bad usage', async () => {
      for (const args of [{ name: 'x', clientId: 'has space' }, { name: 'x', redirectUris: ['https://x.example/cb#frag'] }]) {
        let thrown: unknown;
        await add(services.pool, args).catch((err: unknown) => {
          thrown = err;
        });
        expect(thrown, JSON.stringify(args)).to.be.instanceOf(UsageError);
      }
    });

    it('lists removed clients only when asked, and refuses to remove an unknown one', async () => {
      const client = await add(services.pool, { name: 'To remove' });
      await command('oauth-clients remove').run(context(), { 'client-id': client.clientId });
      expect((await list(services.pool)).map((c) => c.clientId)).not.to.include(client.clientId);
      const all = await list(services.pool, { all: true });
      expect(all.find((c) => c.clientId === client.clientId)?.revokedAt).to.be.instanceOf(Date);
      let thrown: unknown;
      await remove(services.pool, { clientId: client.clientId }).catch((err: unknown) => {
        thrown = err;
      });
      expect(thrown).to.be.instanceOf(CommandError);
    });
  });

  describe('authorization codes', () => {
    async function grantFor(clientId: string) {
      const { accountId } = await createAccount(services.pool, { name: 'oauth codes', initialMicrocents: 0 });
      const user = await services.pool.query<{ id: string }>('INSERT INTO users (email, account_id) VALUES ($1, $2) RETURNING id', [`${randomUUID()}@example.test`, accountId]);
      return { clientId, userId: user.rows[0]!.id, accountId, redirectUri: 'https://a.example/cb', scope: 'scrape', source: 'n8n', codeChallenge: null };
    }

    it('gives the grant to exactly one of many concurrent redemptions', async () => {
      const client = await add(services.pool, { name: 'Codes' });
      const grant = await grantFor(client.clientId);
      const { code } = await issueCode(services.pool, grant);
      const results = await Promise.all(Array.from({ length: 12 }, () => consumeCode(services.pool, code, client.clientId)));
      expect(results.filter((r) => r !== null)).to.deep.equal([grant]);
    });

    it("does not give a code to another client, nor once expired", async () => {
      const [a, b] = [await add(services.pool, { name: 'A' }), await add(services.pool, { name: 'B' })];
      const { code } = await issueCode(services.pool, await grantFor(a.clientId));
      expect(await consumeCode(services.pool, code, b.clientId)).to.equal(null);
      await services.pool.query(`UPDATE oauth_codes SET expires_at = now() WHERE client_id = $1`, [a.clientId]);
      expect(await consumeCode(services.pool, code, a.clientId)).to.equal(null);
    });

    it('checks PKCE S256 verifiers (RFC 7636 appendix B)', () => {
      const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
      expect(pkceChallenge(verifier)).to.equal('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
      expect(pkceVerifies(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).to.equal(true);
      expect(pkceVerifies(`${verifier}x`, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).to.equal(false);
      expect(pkceVerifies(verifier, 'short')).to.equal(false);
    });
  });

  it('names keys n8n Integration, OAuth (<source>), or OAuth (<client name>) without a source', () => {
    expect(integrationKeyName('n8n', 'Workflow Tool')).to.equal('n8n Integration');
    expect(integrationKeyName('N8N', 'Workflow Tool')).to.equal('n8n Integration');
    expect(integrationKeyName('zapier', 'Workflow Tool')).to.equal('OAuth (zapier)');
    expect(integrationKeyName('', 'Workflow Tool')).to.equal('OAuth (Workflow Tool)');
  });
});
