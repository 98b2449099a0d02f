import { expect } from 'chai';
import { TrawlError } from '../../../common/errors.js';
import { requireAdmin, type Caller } from '../../../control-plane/accounts/caller.js';

const base: Caller = {
  accountId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  credential: 'session',
  keyId: null,
  userId: '3f2504e0-4f89-11d3-9a0c-0305e82c3302',
  environment: null,
  role: 'user',
  organizationId: null,
  scopes: ['scrape'],
};

describe('admin-only methods', () => {
  it('answer a caller without the admin role with 403 FORBIDDEN', () => {
    for (const credential of ['session', 'api_key'] as const) {
      let thrown: unknown;
      try {
        requireAdmin({ ...base, credential });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TrawlError);
      expect((thrown as TrawlError).code).to.equal('FORBIDDEN');
      expect((thrown as TrawlError).httpStatus).to.equal(403);
    }
  });

  it('let an admin through', () => {
    expect(() => requireAdmin({ ...base, role: 'admin' })).not.to.throw();
  });
});
