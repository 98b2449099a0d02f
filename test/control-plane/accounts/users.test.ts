import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { expect } from 'chai';
import { PASSWORD_HASH_PARAMS } from '../../../control-plane/accounts/passwords.js';
import { createSessionTokens } from '../../../control-plane/accounts/session-tokens.js';
import { createUsers, type Users } from '../../../control-plane/accounts/users.js';
import { getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

describe('users: login', function () {
  this.timeout(60_000);
  let services: ControlPlaneServices;
  let users: Users;
  before(async () => {
    services = await getControlPlaneServices();
    users = createUsers({
      pool: services.pool,
      sessionTokens: createSessionTokens(services.config.session),
      welcomeBonus: { fullMicrocents: 0, reducedMicrocents: 0 },
    });
  });

  it('issues a session token naming the user', async () => {
    const email = `login-${randomUUID()}@example.org`;
    const { user } = await users.register({ email, password: 'a fine password', clientIp: '192.0.2.10' });
    const session = await users.login({ email: `  ${email.toUpperCase()} `, password: 'a fine password' });
    expect((await createSessionTokens(services.config.session).verify(session.token)).userId).to.equal(user.id);
  });

  it('replaces a hash made with older scrypt parameters at the next login', async () => {
    const email = `rehash-${randomUUID()}@example.org`;
    const { user } = await users.register({ email, password: 'an old password', clientIp: null });
    const salt = randomBytes(16);
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('an old password', salt, 32, { N: 16_384, r: 8, p: 1 }).toString('base64')}`;
    await services.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [user.id, old]);
    await users.login({ email, password: 'an old password' });
    const row = await services.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(row.rows[0]!.password_hash).to.match(new RegExp(`^scrypt\\$${PASSWORD_HASH_PARAMS.N}\\$${PASSWORD_HASH_PARAMS.r}\\$${PASSWORD_HASH_PARAMS.p}\\$`));
    expect((await users.login({ email, password: 'an old password' })).token).to.be.a('string');
  });

  it('refuses a password over the length ceiling with INVALID_CREDENTIALS, without hashing it', async () => {
    const err = await users.login({ email: 'anyone@example.org', password: 'x'.repeat(10_000) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.include({ code: 'INVALID_CREDENTIALS', httpStatus: 401 });
  });

  it('refuses to register a password outside 8 to 256 characters', async () => {
    for (const password of ['short', 'p'.repeat(257)]) {
      const err = await users.register({ email: `len-${randomUUID()}@example.org`, password, clientIp: null }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.include({ code: 'VALIDATION_ERROR' });
    }
  });
});
