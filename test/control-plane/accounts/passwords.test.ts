import { expect } from 'chai';
import { PASSWORD_HASH_PARAMS, hashPassword, needsRehash, verifyPassword } from '../../../control-plane/accounts/passwords.js';

describe('password hashing (scrypt)', function () {
  this.timeout(30_000);

  it('stores the scrypt parameters, a salt and a key, never the password', async () => {
    const hash = await hashPassword('correct horse battery staple');
    const { N, r, p } = PASSWORD_HASH_PARAMS;
    expect(hash).to.match(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
    expect(hash).not.to.contain('correct horse');
    expect(128 * N * r).to.be.at.least(32 * 1024 * 1024);
  });

  it('salts every hash, so one password gives two different hashes', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.to.equal(b);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('s3cret-passw0rd');
    expect(await verifyPassword('s3cret-passw0rd', hash)).to.equal(true);
    expect(await verifyPassword('s3cret-passw0rD', hash)).to.equal(false);
    expect(await verifyPassword('', hash)).to.equal(false);
  });

  it('treats composed and decomposed Unicode forms of a password as the same password', async () => {
    const hash = await hashPassword('caf\u00e9-passphrase');
    expect(await verifyPassword('cafe\u0301-passphrase', hash)).to.equal(true);
  });

  it('refuses malformed stored hashes and ones asking for absurd parameters instead of running them', async () => {
    for (const stored of ['', 'plain-text', 'scrypt$1$8$1$AAAA', `scrypt$${2 ** 30}$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA`, 'bcrypt$2$8$1$AA$AA']) {
      expect(await verifyPassword('whatever-password', stored), stored).to.equal(false);
    }
  });

  it('asks for a new hash when the stored one was made with other parameters', async () => {
    expect(needsRehash(await hashPassword('a password here'))).to.equal(false);
    expect(needsRehash('scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=')).to.equal(true);
  });
});
