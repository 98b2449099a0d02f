import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createHostPacing, UNPAUSED_RECHECK_MS } from '../../../workers/crawl/host-pacing.js';
import { scratchRedis } from '../../fixtures/scratch-redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('crawl/host-pacing (Redis)', function () {
  this.timeout(20_000);
  const scratch = scratchRedis('host-pace');
  let redis: Redis;
  let other: Redis;
  const key = (host: string) => `${scratch.prefix}${host}`;
  beforeEach(() => {
    ({ redis, second: other } = scratch);
  });

  it('holds every worker off a paused host until the pause ends', async () => {
    const mine = createHostPacing(redis, key);
    const theirs = createHostPacing(other, key);
    await theirs.pause('site.test', 400);
    const started = Date.now();
    expect(await mine.wait('site.test', 0)).to.equal(true);
    expect(Date.now() - started).to.be.at.least(300);
  });

  it('sees a pause set by another worker within the recheck interval, and its own at once', async () => {
    const mine = createHostPacing(redis, key);
    const theirs = createHostPacing(other, key);
    expect(await mine.wait('site.test', 0)).to.equal(true);
    await theirs.pause('site.test', 600);
    await sleep(UNPAUSED_RECHECK_MS + 20);
    let started = Date.now();
    await mine.wait('site.test', 0);
    expect(Date.now() - started).to.be.at.least(400);

    await mine.wait('elsewhere.test', 0);
    await mine.pause('elsewhere.test', 500);
    started = Date.now();
    await mine.wait('elsewhere.test', 0);
    expect(Date.now() - started).to.be.at.least(400);
  });

  it('asks Redis about an unpaused host at most once per recheck interval', async () => {
    const mine = createHostPacing(redis, key);
    const calls = { n: 0 };
    const pttl = redis.pttl.bind(redis);
    (redis as unknown as { pttl: typeof pttl }).pttl = ((...args: Parameters<typeof pttl>) => {
      calls.n++;
      return pttl(...args);
    }) as typeof pttl;
    try {
      for (let i = 0; i < 20; i++) expect(await mine.wait('site.test', 0)).to.equal(true);
      expect(calls.n).to.equal(1);
      await sleep(UNPAUSED_RECHECK_MS + 20);
      await mine.wait('site.test', 0);
      expect(calls.n).to.equal(2);
    } finally {
      (redis as unknown as { pttl: typeof pttl }).pttl = pttl;
    }
  });

  it('spaces requests by the crawl delay across workers', async () => {
    const mine = createHostPacing(redis, key);
    const theirs = createHostPacing(other, key);
    const started = Date.now();
    await mine.wait('slow.test', 300);
    await theirs.wait('slow.test', 300);
    await mine.wait('slow.test', 300);
    expect(Date.now() - started).to.be.at.least(550);
  });
});
