import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createDomainLease, domainKey } from '../../../workers/runtime/domain-lease.js';
import { scratchRedis } from '../../fixtures/scratch-redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('per-domain lease (Redis)', function () {
  this.timeout(30_000);
  const scratch = scratchRedis('domain-lease');
  let redis: Redis;
  let second: Redis;
  let prefix: string;
  beforeEach(() => {
    ({ redis, second, prefix } = scratch);
  });

  it('grants no more than the limit under concurrent acquires from two connections', async () => {
    const a = createDomainLease(redis, { limit: 3, ttlMs: 10_000, keyPrefix: prefix });
    const b = createDomainLease(second, { limit: 3, ttlMs: 10_000, keyPrefix: prefix });
    const attempts = Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).acquire('example.com', `holder-${i}`));
    const leases = await Promise.all(attempts);
    const granted = leases.filter((lease) => lease !== null);
    expect(granted).to.have.length(3);
    expect(await redis.zcard(`${prefix}example.com`)).to.equal(3);
  });

  it('keeps domains apart', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
    expect(await lease.acquire('example.com', 'h1')).not.to.equal(null);
    expect(await lease.acquire('example.org', 'h2')).not.to.equal(null);
    expect(await lease.acquire('example.com', 'h3')).to.equal(null);
  });

  it('shares slots between a host and its www. form, case-insensitively', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
    expect(await lease.acquire('WWW.Example.com', 'h1')).not.to.equal(null);
    expect(await lease.acquire('example.com.', 'h2')).to.equal(null);
    expect(await lease.acquire('blog.example.com', 'h3')).not.to.equal(null);
    expect(domainKey('WWW.Example.COM.')).to.equal('example.com');
  });

  it('frees a slot on release', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
    const first = await lease.acquire('example.com', 'h1');
    expect(first).not.to.equal(null);
    expect(await lease.acquire('example.com', 'h2')).to.equal(null);
    await first!.release();
    expect(await lease.acquire('example.com', 'h2')).not.to.equal(null);
  });

  it('gives the same holder its existing slot again instead of a second one', async () => {
    const lease = createDomainLease(redis, { limit: 2, ttlMs: 10_000, keyPrefix: prefix });
    expect(await lease.acquire('example.com', 'h1')).not.to.equal(null);
    expect(await lease.acquire('example.com', 'h1')).not.to.equal(null);
    expect(await redis.zcard(`${prefix}example.com`)).to.equal(1);
    expect(await lease.acquire('example.com', 'h2')).not.to.equal(null);
  });

  it('frees the slot of a holder that never releases (a killed worker) after the ttl', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 300, keyPrefix: prefix });
    expect(await lease.acquire('example.com', 'dead-worker')).not.to.equal(null);
    expect(await lease.acquire('example.com', 'live-worker')).to.equal(null);
    await sleep(450);
    const taken = await lease.acquire('example.com', 'live-worker');
    expect(taken).not.to.equal(null);
    expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['live-worker']);
  });

  it('lets the key itself expire when every holder is gone', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 300, keyPrefix: prefix });
    await lease.acquire('example.com', 'h1');
    const pttl = await redis.pttl(`${prefix}example.com`);
    expect(pttl).to.be.greaterThan(0).and.at.most(300);
  });

  it('extends a slot on refresh, so a live holder keeps it past the ttl', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 300, keyPrefix: prefix });
    const held = await lease.acquire('example.com', 'h1');
    for (let i = 0; i < 4; i++) {
      await sleep(150);
      expect(await held!.refresh()).to.equal(true);
    }
    expect(await lease.acquire('example.com', 'h2')).to.equal(null);
  });

  it('reports a refresh after the slot expired as lost, without taking a slot back', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 300, keyPrefix: prefix });
    const held = await lease.acquire('example.com', 'h1');
    await sleep(450);
    expect(await lease.acquire('example.com', 'h2')).not.to.equal(null);
    expect(await held!.refresh()).to.equal(false);
    expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h2']);
  });

  it('waits for a slot to be released', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
    const first = await lease.acquire('example.com', 'h1');
    let released = false;
    setTimeout(() => void first!.release().then(() => (released = true)), 200);
    const waited = await lease.acquireWithWait('example.com', 'h2', { waitMs: 5_000 });
    expect(waited).not.to.equal(null);
    expect(waited!.holderId).to.equal('h2');
    expect(released).to.equal(true);
    expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h2']);
  });

  it('waits for an abandoned slot to expire', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 300, keyPrefix: prefix });
    await lease.acquire('example.com', 'dead-worker');
    expect(await lease.acquireWithWait('example.com', 'h2', { waitMs: 3_000 })).not.to.equal(null);
  });

  it('gives up with null when no slot frees within the wait', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
    await lease.acquire('example.com', 'h1');
    const started = Date.now();
    expect(await lease.acquireWithWait('example.com', 'h2', { waitMs: 300 })).to.equal(null);
    expect(Date.now() - started).to.be.below(3_000);
    expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h1']);
  });

  it('stops waiting when the signal aborts', async () => {
    const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
    await lease.acquire('example.com', 'h1');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect(await lease.acquireWithWait('example.com', 'h2', { waitMs: 20_000, signal: controller.signal })).to.equal(null);
    expect(Date.now() - started).to.be.below(5_000);
    expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h1']);
  });

  describe('with a linger', () => {
    it('hands a released slot to the next acquire of the domain in the process, without giving it back to Redis', async () => {
      const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix, lingerMs: 2_000 });
      const other = createDomainLease(second, { limit: 1, ttlMs: 10_000, keyPrefix: prefix, lingerMs: 2_000 });
      const first = await lease.acquire('example.com', 'h1');
      await first!.release();
      // Still held in Redis: another process finds the domain full while the slot lingers here.
      expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h1']);
      expect(await other.acquire('example.com', 'x1')).to.equal(null);
      const next = await lease.acquire('www.Example.com', 'h2');
      expect(next).not.to.equal(null);
      expect(next!.holderId).to.equal('h1');
      // Taken over, not doubled: the limit still holds in this process.
      expect(await lease.acquire('example.com', 'h3')).to.equal(null);
      expect(await lease.acquire('example.org', 'h4')).not.to.equal(null);
    });

    it('gives the slot back to Redis once the linger passes with no taker', async () => {
      const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix, lingerMs: 100 });
      const other = createDomainLease(second, { limit: 1, ttlMs: 10_000, keyPrefix: prefix });
      await (await lease.acquire('example.com', 'h1'))!.release();
      await sleep(250);
      expect(await redis.zcard(`${prefix}example.com`)).to.equal(0);
      expect(await other.acquire('example.com', 'x1')).not.to.equal(null);
    });

    it('wakes a waiter of the process at once when a slot is released', async () => {
      const lease = createDomainLease(redis, { limit: 1, ttlMs: 10_000, keyPrefix: prefix, lingerMs: 2_000 });
      const first = await lease.acquire('example.com', 'h1');
      // The waiter's jittered backoff at its longest: 25, 50, … 800 ms (asleep from 1.575 s), then 1 s, till 2.575 s.
      const random = Math.random;
      Math.random = () => 0.999;
      let next;
      let releasedAt = 0;
      try {
        const waiting = lease.acquireWithWait('example.com', 'h2', { waitMs: 10_000 });
        await sleep(1_800);
        releasedAt = Date.now();
        await first!.release();
        next = await waiting;
      } finally {
        Math.random = random;
      }
      expect(next).not.to.equal(null);
      expect(Date.now() - releasedAt).to.be.below(300);
      expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h1']);
    });

    it('does not take over a slot with less than half its ttl left: that one goes back and a new one is acquired', async () => {
      const lease = createDomainLease(redis, { limit: 1, ttlMs: 400, keyPrefix: prefix, lingerMs: 5_000 });
      const first = await lease.acquire('example.com', 'h1');
      await sleep(250);
      await first!.release();
      const next = await lease.acquire('example.com', 'h2');
      expect(next!.holderId).to.equal('h2');
      expect(await redis.zrange(`${prefix}example.com`, 0, -1)).to.deep.equal(['h2']);
    });
  });

  it('refuses a limit or ttl below 1', () => {
    expect(() => createDomainLease(redis, { limit: 0, ttlMs: 1000, keyPrefix: prefix })).to.throw();
    expect(() => createDomainLease(redis, { limit: 1, ttlMs: 0, keyPrefix: prefix })).to.throw();
  });
});
