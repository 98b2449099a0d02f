import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { PendingResults } from '../../../workers/crawl/pending-results.js';
import { scratchRedis } from '../../fixtures/scratch-redis.js';

describe('crawl/pending-results (Redis)', function () {
  this.timeout(20_000);
  const scratch = scratchRedis('pending-results');
  let redis: Redis;
  let prefix: string;
  beforeEach(() => {
    ({ redis, prefix } = scratch);
  });

  it('stores nothing until drained, then every result with its time to live', async () => {
    const results = new PendingResults(redis, 120);
    results.add(`${prefix}a`, Buffer.from('first'));
    results.add(`${prefix}b`, Buffer.from([0, 1, 2, 255]));
    expect(await redis.exists(`${prefix}a`)).to.equal(0);
    await results.drain();
    expect(await redis.get(`${prefix}a`)).to.equal('first');
    expect([...(await redis.getBuffer(`${prefix}b`))!]).to.deep.equal([0, 1, 2, 255]);
    const ttl = await redis.ttl(`${prefix}b`);
    expect(ttl).to.be.greaterThan(100).and.at.most(120);
  });

  it('writes out early once the queued results pass the size limit', async () => {
    const results = new PendingResults(redis, 60, 1_000);
    results.add(`${prefix}small`, Buffer.alloc(400));
    results.add(`${prefix}big`, Buffer.alloc(700));
    // The write started with the second result; a round trip later both are there without a drain.
    await redis.ping();
    expect(await redis.exists(`${prefix}small`, `${prefix}big`)).to.equal(2);
    results.add(`${prefix}late`, Buffer.alloc(10));
    expect(await redis.exists(`${prefix}late`)).to.equal(0);
    await results.drain();
    expect(await redis.exists(`${prefix}late`)).to.equal(1);
  });

  it('fails the drain when a write failed, so the report naming the results is not sent', async () => {
    // Redis refuses an expiry of 0 seconds.
    const broken = new PendingResults(redis, 0);
    broken.add(`${prefix}x`, Buffer.from('x'));
    let failure: unknown = null;
    await broken.drain().catch((err) => (failure = err));
    expect(String(failure)).to.match(/expire/i);
    const results = new PendingResults(redis, 60);
    results.add(`${prefix}ok`, Buffer.from('fine'));
    await results.drain();
    expect(await redis.get(`${prefix}ok`)).to.equal('fine');
  });
});
