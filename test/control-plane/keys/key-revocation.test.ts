import { expect } from 'chai';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../../common/connections.js';
import { TrawlError } from '../../../common/errors.js';
import { createAuthenticator, type Authenticator } from '../../../control-plane/accounts/authenticator.js';
import { startKeyChanges, type KeyChanges } from '../../../control-plane/keys/key-changes.js';
import { createKeyStore } from '../../../control-plane/keys/key-store.js';
import { createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

/** Two control planes' worth of key caches, each on a NATS connection of its own. */
interface Replica {
  nc: NatsConnection;
  authenticator: Authenticator;
  changes: KeyChanges;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(TrawlError);
    return (err as TrawlError).code;
  }
  return 'accepted';
}

describe('key revocation across control-plane replicas', function () {
  this.timeout(30_000);
  let services: ControlPlaneServices;
  let replicas: Replica[];
  let subject: string;

  before(async () => {
    services = await getControlPlaneServices();
    subject = `${services.names.apiKeyChangedSubject}.${Date.now()}`;
    replicas = await Promise.all(
      [1, 2].map(async (n) => {
        const nc = await connectNats(services.config, `replica-${n}`);
        // A cache far longer than the test: only an announcement can make a replica look again.
        const authenticator = createAuthenticator(services.pool, { cacheMs: 10 * 60_000 });
        return { nc, authenticator, changes: startKeyChanges(nc, subject, [authenticator.forget]) };
      }),
    );
    await Promise.all(replicas.map((r) => r.nc.flush()));
  });
  after(async () => {
    for (const r of replicas) {
      r.changes.stop();
      await r.nc.close();
    }
  });

  /** Waits until every replica's connection has read what the server sent it so far. */
  const heard = () => Promise.all(replicas.map((r) => r.nc.flush()));

  it('keeps answering a revoked key from the cache when nobody announces the revocation', async () => {
    const caller = await createTestCaller(services, 0);
    const store = createKeyStore(services.pool, services.config.masterKeyHex);
    for (const r of replicas) expect((await r.authenticator.authenticate(caller.key)).keyId).to.equal(caller.keyId);
    await store.revoke(caller.accountId, caller.keyId);
    for (const r of replicas) expect(await refusal(r.authenticator.authenticate(caller.key))).to.equal('accepted');
    expect(await refusal(createAuthenticator(services.pool, { cacheMs: 0 }).authenticate(caller.key))).to.equal('INVALID_API_KEY');
  });

  it('refuses a revoked key on every replica once one of them announces it', async () => {
    const caller = await createTestCaller(services, 0);
    const store = createKeyStore(services.pool, services.config.masterKeyHex);
    for (const r of replicas) expect((await r.authenticator.authenticate(caller.key)).keyId).to.equal(caller.keyId);
    await store.revoke(caller.accountId, caller.keyId);
    await replicas[0]!.changes.announce(caller.keyId);
    await heard();
    for (const r of replicas) expect(await refusal(r.authenticator.authenticate(caller.key))).to.equal('INVALID_API_KEY');
  });

  it('refuses the old secret of a regenerated key on every replica and accepts the new one', async () => {
    const caller = await createTestCaller(services, 0);
    const store = createKeyStore(services.pool, services.config.masterKeyHex);
    for (const r of replicas) await r.authenticator.authenticate(caller.key);
    const renewed = await store.regenerate(caller.accountId, caller.keyId);
    await replicas[1]!.changes.announce(caller.keyId);
    await heard();
    for (const r of replicas) {
      expect(await refusal(r.authenticator.authenticate(caller.key))).to.equal('INVALID_API_KEY');
      expect((await r.authenticator.authenticate(renewed.key)).keyId).to.equal(caller.keyId);
    }
  });

  it('still drops the key in its own process when NATS cannot take the announcement', async () => {
    const caller = await createTestCaller(services, 0);
    const nc = await connectNats(services.config, 'replica-offline');
    const authenticator = createAuthenticator(services.pool, { cacheMs: 10 * 60_000 });
    const errors: unknown[] = [];
    const changes = startKeyChanges(nc, subject, [authenticator.forget], (err) => errors.push(err));
    await authenticator.authenticate(caller.key);
    await createKeyStore(services.pool, services.config.masterKeyHex).revoke(caller.accountId, caller.keyId);
    await nc.close();
    await changes.announce(caller.keyId);
    expect(errors).to.have.length(1);
    expect(await refusal(authenticator.authenticate(caller.key))).to.equal('INVALID_API_KEY');
  });

  it('does not cache a lookup that raced with a revocation', async () => {
    const caller = await createTestCaller(services, 0);
    const authenticator = createAuthenticator(services.pool, { cacheMs: 10 * 60_000 });
    const racing = authenticator.authenticate(caller.key);
    await createKeyStore(services.pool, services.config.masterKeyHex).revoke(caller.accountId, caller.keyId);
    authenticator.forget(caller.keyId);
    await racing.catch(() => undefined);
    expect(await refusal(authenticator.authenticate(caller.key))).to.equal('INVALID_API_KEY');
  });
});
