import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createSessionTokens } from '../../../control-plane/accounts/session-tokens.js';
import { createUsers, type Users } from '../../../control-plane/accounts/users.js';
import { obfuscateEmail, siblingEmailDomain, signupBonusReference, welcomeStatus } from '../../../control-plane/accounts/welcome-bonus.js';
import { balanceOf } from '../../support/api.js';
import { getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

const amounts = { fullMicrocents: 1_000_000, reducedMicrocents: 200_000 };

/** An address of TEST-NET-2 no other test uses. */
function freshIp(): string {
  const n = Math.floor(Math.random() * 65_536);
  return `198.51.${n >> 8}.${n & 255}`;
}

describe('welcome bonus at sign-up', function () {
  this.timeout(60_000);
  let services: ControlPlaneServices;
  let users: Users;
  before(async () => {
    services = await getControlPlaneServices();
    users = createUsers({ pool: services.pool, sessionTokens: createSessionTokens(services.config.session), welcomeBonus: amounts });
  });

  const register = (email: string, clientIp: string | null) => users.register({ email, password: 'a long enough password', clientIp });

  it('credits the full bonus through the ledger to a first sign-up from its address and domain', async () => {
    const done = await register(`first@${randomUUID()}.example`, freshIp());
    expect(done.reducedBonus).to.equal(false);
    expect(done.welcomeBonusMicrocents).to.equal(1_000_000);
    expect(await balanceOf(services.pool, done.user.accountId)).to.equal(1_000_000);
    const ledger = await services.pool.query('SELECT kind, amount_microcents, reference FROM ledger_entries WHERE account_id = $1', [done.user.accountId]);
    expect(ledger.rows).to.deep.equal([{ kind: 'deposit', amount_microcents: '1000000', reference: signupBonusReference(done.user.accountId) }]);
  });

  it('gives the reduced bonus to a second sign-up from the same address, listing the first obfuscated', async () => {
    const ip = freshIp();
    const first = await register(`alice@${randomUUID()}.example`, ip);
    const second = await register(`bob@${randomUUID()}.example`, ip);
    expect(first.reducedBonus).to.equal(false);
    expect(second.reducedBonus).to.equal(true);
    expect(await balanceOf(services.pool, second.user.accountId)).to.equal(200_000);
    const status = await welcomeStatus(services.pool, second.user.accountId);
    expect(status).to.deep.include({ hasReducedBonus: true, hasDeposit: false, canUnlock: false, remainingMicrocents: 800_000, unlockedAt: null });
    expect(status.siblingAccounts).to.deep.equal([obfuscateEmail(first.user.email)]);
  });

  it('gives the reduced bonus to a second sign-up at the same company domain from another address', async () => {
    const domain = `${randomUUID()}.example`;
    await register(`one@mail.${domain}`, freshIp());
    const second = await register(`two@${domain}`, freshIp());
    expect(second.reducedBonus).to.equal(true);
  });

  it('does not link sign-ups that only share a free-mail provider', async () => {
    await register(`someone-${randomUUID()}@gmail.com`, freshIp());
    const other = await register(`someone-else-${randomUUID()}@gmail.com`, freshIp());
    expect(other.reducedBonus).to.equal(false);
  });

  it('serialises concurrent sign-ups from one address: exactly one gets the full bonus', async () => {
    const ip = freshIp();
    const done = await Promise.all(Array.from({ length: 4 }, (_, i) => register(`racer${i}@${randomUUID()}.example`, ip)));
    expect(done.filter((d) => !d.reducedBonus)).to.have.length(1);
  });

  it('answers a taken e-mail address, in any case, with 409 CONFLICT and creates nothing', async () => {
    const email = `taken-${randomUUID()}@example.org`;
    await register(email, freshIp());
    const accountsBefore = await services.pool.query('SELECT count(*)::int AS n FROM accounts');
    const err = await register(email.toUpperCase(), freshIp()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.include({ code: 'CONFLICT', httpStatus: 409 });
    const accountsAfter = await services.pool.query('SELECT count(*)::int AS n FROM accounts');
    expect(accountsAfter.rows[0].n).to.equal(accountsBefore.rows[0].n);
  });
});

describe('welcome-bonus helpers', () => {
  it('obfuscates e-mail addresses to a first letter and the public suffix', () => {
    expect(obfuscateEmail('john@example.com')).to.equal('j***@e***.com');
    expect(obfuscateEmail('jane.doe@mail.example.co.uk')).to.equal('j***@m***.co.uk');
  });

  it('links accounts by registrable domain, not by free-mail providers', () => {
    expect(siblingEmailDomain('a@sales.acme-corp.com')).to.equal('acme-corp.com');
    expect(siblingEmailDomain('a@gmail.com')).to.equal(null);
    expect(siblingEmailDomain('a@outlook.com')).to.equal(null);
    expect(siblingEmailDomain('a@[192.0.2.1]')).to.equal(null);
  });
});
