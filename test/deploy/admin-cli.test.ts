import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createApiKey } from '../../control-plane/accounts/api-keys.js';
import { verifyPassword } from '../../control-plane/accounts/passwords.js';
import { apiClient, balanceOf } from '../support/api.js';
import { getStack, type TestStack } from '../support/stack.js';

const USD = 1_000_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the operator CLI (npm run admin)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });

  /** Runs the CLI as its own process on the test stack's database, as an operator would. */
  const admin = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'deploy/admin/cli.ts', ...args], { env: { ...stack.env, LOG_LEVEL: 'warn' } }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  const field = (out: string, name: string) => new RegExp(`^${name}:\\s+(\\S+)`, 'm').exec(out)?.[1];
  const newEmail = () => `operator-${randomUUID()}@example.test`;

  it('prints its usage and exits with 2 without a command, 0 for help, 2 for an unknown command', async () => {
    const none = await admin();
    expect(none.code).to.equal(2);
    expect(none.stderr).to.contain('usage: npm run admin -- <command>');
    const help = await admin('help');
    expect(help.code).to.equal(0);
    for (const name of ['accounts create', 'accounts list', 'accounts set-enterprise', 'accounts set-subscription', 'deposit', 'keys revoke', 'oauth-clients']) {
      expect(help.stdout).to.contain(name);
    }
    const unknown = await admin('accounts', 'destroy');
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.contain('unknown command "accounts destroy"');
  });

  it('creates a user with a hashed password, a first deposit and a first key shown once; the key and the password work', async () => {
    const email = newEmail();
    const password = 'operator chosen password';
    const run = await admin('accounts', 'create', '--email', email.toUpperCase(), '--password', password, '--admin', '--usd', '60');
    expect(run.code, run.stderr).to.equal(0);
    const accountId = field(run.stdout, 'account id')!;
    const userId = field(run.stdout, 'user id')!;
    const key = field(run.stdout, 'api key')!;
    expect(key).to.match(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(run.stdout).to.contain('shown only this once');
    expect(run.stdout).not.to.contain(password);
    expect(run.stdout).not.to.contain('scrypt$');

    const user = (await stack.pool.query('SELECT email, role, account_id, password_hash FROM users WHERE id = $1', [userId])).rows[0];
    expect(user).to.include({ email, role: 'admin', account_id: accountId });
    expect(await verifyPassword(password, user.password_hash)).to.equal(true);
    expect(await balanceOf(stack.pool, accountId)).to.equal(60 * USD);

    const balance = await apiClient(stack.baseUrl, key).get('/api/v1/billing/balance');
    expect(balance.status).to.equal(200);
    expect(balance.body).to.include({ balance_usd: 60 });
    expect(balance.body.tier.id).to.equal('growth');
    const login = await apiClient(stack.baseUrl).post('/api/v1/auth/login', { email, password });
    expect(login.status).to.equal(200);

    const again = await admin('accounts', 'create', '--email', email, '--password', password);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain('already registered');
  });

  it('refuses bad usage of accounts create with exit status 2', async () => {
    for (const args of [
      ['--email', newEmail()],
      ['--email', newEmail(), '--password', 'short'],
      ['--email', 'not-an-address', '--password', 'long enough password'],
      ['--email', newEmail(), '--password', 'long enough password', '--usd', '-5'],
      ['--email', newEmail(), '--password', 'long enough password', '--usd', 'ten'],
      ['--email', newEmail(), '--password', 'long enough password', '--colour', 'blue'],
    ]) {
      const run = await admin('accounts', 'create', ...args);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr, args.join(' ')).to.contain('usage: npm run admin -- accounts create');
    }
  });

  it('deposits through the ledger, once per reference', async () => {
    const email = newEmail();
    const created = await admin('accounts', 'create', '--email', email, '--password', 'long enough password');
    const accountId = field(created.stdout, 'account id')!;
    const reference = `invoice-${randomUUID()}`;

    const first = await admin('deposit', '--email', email, '--usd', '12.5', '--reference', reference);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.contain('deposited:   $12.50');
    expect(await balanceOf(stack.pool, accountId)).to.equal(12_500_000);
    const repeat = await admin('deposit', '--email', email, '--usd', '12.5', '--reference', reference);
    expect(repeat.code).to.equal(0);
    expect(repeat.stdout).to.contain('already applied');
    expect(await balanceOf(stack.pool, accountId)).to.equal(12_500_000);
    const entries = await stack.pool.query(`SELECT amount_microcents FROM ledger_entries WHERE account_id = $1 AND kind = 'deposit'`, [accountId]);
    expect(entries.rows).to.deep.equal([{ amount_microcents: '12500000' }]);

    const otherEmail = newEmail();
    await admin('accounts', 'create', '--email', otherEmail, '--password', 'long enough password');
    const elsewhere = await admin('deposit', '--email', otherEmail, '--usd', '1', '--reference', reference);
    expect(elsewhere.code).to.equal(1);
    expect(elsewhere.stderr).to.contain('another account');

    const unreferenced = await admin('deposit', '--email', email, '--usd', '1');
    expect(unreferenced.code).to.equal(0);
    expect(await balanceOf(stack.pool, accountId)).to.equal(13_500_000);

    expect((await admin('deposit', '--email', `nobody-${randomUUID()}@example.test`, '--usd', '1')).code).to.equal(1);
    for (const args of [['--usd', '1'], ['--email', email], ['--email', email, '--usd', '0'], ['--email', email, '--usd', '1', '--reference', 'has space']]) {
      expect((await admin('deposit', ...args)).code, args.join(' ')).to.equal(2);
    }
  });

  it('lists accounts newest first with their balance, tier and enterprise flag', async () => {
    const email = newEmail();
    await admin('accounts', 'create', '--email', email, '--password', 'long enough password', '--usd', '7');
    const run = await admin('accounts', 'list', '--limit', '1');
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]!.split(/\s{2,}/)).to.deep.equal(['EMAIL', 'ACCOUNT ID', 'BALANCE USD', 'TIER', 'ENTERPRISE', 'CREATED']);
    const row = lines[1]!.split(/\s{2,}/);
    expect(row.slice(0, 1).concat(row.slice(2, 5))).to.deep.equal([email, '7.00', 'basic', 'no']);
    expect((await admin('accounts', 'list', '--limit', '0')).code).to.equal(2);
    expect((await admin('accounts', 'list', '--limit', 'many')).code).to.equal(2);
  });

  it('turns the enterprise flag on and off', async () => {
    const email = newEmail();
    const created = await admin('accounts', 'create', '--email', email, '--password', 'long enough password');
    const key = field(created.stdout, 'api key')!;
    const on = await admin('accounts', 'set-enterprise', '--email', email, '--on');
    expect(on.code, on.stderr).to.equal(0);
    expect(on.stdout).to.contain('tier enterprise');
    expect((await apiClient(stack.baseUrl, key).get('/api/v1/billing/balance')).body).to.include({ is_enterprise: true });
    const off = await admin('accounts', 'set-enterprise', '--email', email, '--off');
    expect(off.stdout).to.contain('tier free');
    expect((await apiClient(stack.baseUrl, key).get('/api/v1/billing/balance')).body.tier.id).to.equal('free');
    expect((await admin('accounts', 'set-enterprise', '--email', email, '--on', '--off')).code).to.equal(2);
    expect((await admin('accounts', 'set-enterprise', '--email', email)).code).to.equal(2);
  });

  it('clears an inactive subscription so the account dispatches again', async () => {
    const email = newEmail();
    const created = await admin('accounts', 'create', '--email', email, '--password', 'long enough password', '--usd', '60');
    const key = field(created.stdout, 'api key')!;
    const extract = () => apiClient(stack.baseUrl, key).post('/api/v1/extract', { content: '<p>x y z</p>', formats: ['text'] });
    expect((await admin('accounts', 'set-subscription', '--email', email, '--status', 'cancelled')).code).to.equal(0);
    expect((await extract()).body.error).to.equal('SUBSCRIPTION_INACTIVE');
    expect((await admin('accounts', 'set-subscription', '--email', email, '--status', 'none')).code).to.equal(0);
    expect((await extract()).status).to.equal(200);
    expect((await admin('accounts', 'set-subscription', '--email', email, '--status', 'lapsed')).code).to.equal(2);
  });

  it('revokes a key by id or by prefix', async () => {
    const email = newEmail();
    const created = await admin('accounts', 'create', '--email', email, '--password', 'long enough password');
    const keyId = field(created.stdout, 'api key id')!;
    const key = field(created.stdout, 'api key')!;
    const revoked = await admin('keys', 'revoke', '--key-id', keyId);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.contain(`revoked key ${keyId}`);
    expect(revoked.stdout).not.to.contain(key);
    const refused = await apiClient(stack.baseUrl, key).get('/api/v1/billing/balance');
    expect(refused.status).to.equal(401);
    expect(refused.body.error).to.equal('INVALID_API_KEY');
    expect((await admin('keys', 'revoke', '--key-id', keyId)).stdout).to.contain('already revoked');

    const accountId = field(created.stdout, 'account id')!;
    const second = await createApiKey(stack.pool, { accountId, name: 'second', environment: 'test', masterKeyHex: stack.config.masterKeyHex });
    const byPrefix = await admin('keys', 'revoke', '--prefix', second.keyPrefix);
    expect(byPrefix.code, byPrefix.stderr).to.equal(0);
    expect((await stack.pool.query('SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1', [second.id])).rows[0].revoked).to.equal(true);

    expect((await admin('keys', 'revoke', '--key-id', randomUUID())).code).to.equal(1);
    expect((await admin('keys', 'revoke')).code).to.equal(2);
    expect((await admin('keys', 'revoke', '--key-id', keyId, '--prefix', second.keyPrefix)).code).to.equal(2);
    expect((await admin('keys', 'revoke', '--key-id', 'not-a-uuid')).code).to.equal(2);
  });

  it('dispatches oauth-clients commands to their module, or says clearly that this build has none', async () => {
    const run = await admin('oauth-clients', 'list');
    if (existsSync('deploy/admin/oauth-clients.ts')) {
      expect(run.code, run.stderr).to.equal(0);
    } else {
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain('oauth-clients commands are not available');
    }
  });
});
