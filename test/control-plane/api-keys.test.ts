import { expect } from 'chai';
import { isWellFormedApiKey } from '../../common/api-key-format.js';
import { randomBytes } from 'node:crypto';
import {
  createAccount,
  createApiKey,
  decryptApiKey,
  digestApiKey,
  findApiKey,
  generateApiKey,
} from '../../control-plane/accounts/api-keys.js';
import { getControlPlaneServices, type ControlPlaneServices } from './support/database.js';

describe('API keys', function () {
  this.timeout(60_000);
  let stack: ControlPlaneServices;
  before(async () => {
    stack = await getControlPlaneServices();
  });

  it('generates well-formed, distinct live and test keys', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live).to.match(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(test).to.match(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(new Set(Array.from({ length: 200 }, () => generateApiKey('live'))).size).to.equal(200);
    expect(isWellFormedApiKey('sk_live_short')).to.equal(false);
  });

  it('stores a digest and an encrypted copy, never the key itself', async () => {
    const master = randomBytes(32).toString('hex');
    const { accountId } = await createAccount(stack.pool, { name: 'keys', initialMicrocents: 0 });
    const created = await createApiKey(stack.pool, { accountId, name: 'k', environment: 'live', masterKeyHex: master });
    const row = await stack.pool.query('SELECT key_prefix, key_digest, key_ciphertext FROM api_keys WHERE id = $1', [created.id]);
    const stored = row.rows[0];
    expect(stored.key_prefix).to.equal(created.key.slice(0, 12));
    expect(Buffer.compare(stored.key_digest, digestApiKey(created.key))).to.equal(0);
    expect(stored.key_ciphertext.toString('utf8')).to.not.contain(created.key.slice(8));
    expect(decryptApiKey(stored.key_ciphertext, master)).to.equal(created.key);
    expect(() => decryptApiKey(stored.key_ciphertext, randomBytes(32).toString('hex'))).to.throw();
    expect(await findApiKey(stack.pool, created.key)).to.deep.equal({ keyId: created.id, accountId, scopes: ['scrape'], environment: 'live', role: 'user' });
  });
});
