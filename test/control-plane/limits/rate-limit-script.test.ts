import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { rateLimitScript, type RateLimitScript } from '../../../common/rate-limit-script.js';
import { getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the rate-limit script (GCRA and leases in Redis)', () => {
  let services: ControlPlaneServices;
  let script: RateLimitScript;
  const key = (what: string) => `${services.config.natsPrefix}script-test:${randomUUID()}:${what}`;

  before(async () => {
    services = await getControlPlaneServices();
    script = rateLimitScript(services.redis);
  });

  it('admits a burst of exactly the per-second count, then refuses with the wait until the next token', async () => {
    const second = { key: key('second'), count: 5, periodMs: 1_000 };
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await script.take([second], 1);
      expect(d.refused, `request ${i + 1}`).to.equal(0);
      remaining.push(d.remaining);
    }
    expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
    const refused = await script.take([second], 1);
    expect(refused.refused).to.equal(1);
    expect(refused.retryAfterMs).to.be.within(1, 200);
    expect(refused.remaining).to.equal(0);
  });

  it('lets a token back in after its share of the period', async () => {
    const second = { key: key('second'), count: 5, periodMs: 1_000 };
    for (let i = 0; i < 5; i++) await script.take([second], 1);
    expect((await script.take([second], 1)).refused).to.equal(1);
    await sleep(220);
    expect((await script.take([second], 1)).refused).to.equal(0);
  });

  it('admits the per-minute count and then refuses for 60 s / count, whatever the per-second limit allows', async () => {
    const minute = { key: key('minute'), count: 30, periodMs: 60_000 };
    const second = { key: key('second'), count: 500, periodMs: 1_000 };
    const before = Date.now();
    for (let i = 0; i < 30; i++) expect((await script.take([minute, second], 1)).refused, `request ${i + 1}`).to.equal(0);
    const refused = await script.take([minute, second], 1);
    expect(refused.refused).to.equal(1);
    expect(refused.retryAfterMs).to.be.within(1_500, 2_000);
    // The allowance is whole again one minute after the first request.
    expect(refused.resetAtMs).to.be.within(before + 59_000, Date.now() + 60_000);
  });

  it('charges a write two tokens', async () => {
    const second = { key: key('second'), count: 5, periodMs: 1_000 };
    const first = await script.take([second], 2);
    const again = await script.take([second], 2);
    expect([first.remaining, again.remaining]).to.deep.equal([3, 1]);
    const third = await script.take([second], 2);
    expect(third.refused).to.equal(1);
    // One token is left: a read still fits where a write does not.
    expect((await script.take([second], 1)).refused).to.equal(0);
  });

  it('admits a write under a limit of one while the allowance is whole, rather than never', async () => {
    const one = { key: key('one'), count: 1, periodMs: 1_000 };
    expect((await script.take([one], 2)).refused).to.equal(0);
    expect((await script.take([one], 2)).refused).to.equal(1);
  });

  it('writes nothing for a refused request: no limit is spent and no lease taken', async () => {
    const minute = { key: key('minute'), count: 10, periodMs: 60_000 };
    const second = { key: key('second'), count: 2, periodMs: 1_000 };
    const leases = { key: key('leases'), ceiling: 10, ttlMs: 10_000 };
    await script.take([minute, second], 1, { ...leases, ids: ['a'] });
    await script.take([minute, second], 1, { ...leases, ids: ['b'] });
    const refused = await script.take([minute, second], 1, { ...leases, ids: ['c'] });
    expect(refused.refused).to.equal(2);
    expect(await services.redis.zrange(leases.key, 0, -1)).to.have.members(['a', 'b']);
    // The per-minute limit kept 8 of 10: the refused request did not spend one.
    await sleep(1_050);
    expect((await script.take([minute, second], 1, { ...leases, ids: ['d'] })).remaining).to.equal(7);
  });

  it('holds at most the lease ceiling and frees a slot when a lease is released', async () => {
    const leases = { key: key('leases'), ceiling: 2, ttlMs: 10_000 };
    const one = await script.take([], 0, { ...leases, ids: ['one'] });
    const two = await script.take([], 0, { ...leases, ids: ['two'] });
    expect([one.leasesHeld, two.leasesHeld]).to.deep.equal([1, 2]);
    const three = await script.take([], 0, { ...leases, ids: ['three'] });
    expect(three.refused).to.equal(1);
    expect(three.leasesHeld).to.equal(2);
    await services.redis.zrem(leases.key, 'one');
    expect((await script.take([], 0, { ...leases, ids: ['three'] })).refused).to.equal(0);
  });

  it('lets the lease of a process that died (never released nor renewed) expire', async () => {
    const leases = { key: key('leases'), ceiling: 1, ttlMs: 300 };
    expect((await script.take([], 0, { ...leases, ids: ['of-a-dead-process'] })).refused).to.equal(0);
    expect((await script.take([], 0, { ...leases, ids: ['next'] })).refused).to.equal(1);
    await sleep(400);
    const later = await script.take([], 0, { ...leases, ids: ['next'] });
    expect(later.refused).to.equal(0);
    expect(later.leasesHeld).to.equal(1);
    expect(await services.redis.zrange(leases.key, 0, -1)).to.deep.equal(['next']);
  });

  it('keeps a renewed lease past its first time to live, and never brings back a released one', async () => {
    const leases = { key: key('leases'), ceiling: 1, ttlMs: 300 };
    await script.take([], 0, { ...leases, ids: ['live'] });
    await sleep(200);
    await script.refresh(leases.key, 300, ['live', 'released-meanwhile']);
    await sleep(200);
    expect((await script.take([], 0, { ...leases, ids: ['other'] })).refused).to.equal(1);
    expect(await services.redis.zrange(leases.key, 0, -1)).to.deep.equal(['live']);
  });

  it('decides a batch in order as one request after another: a refused request spends nothing and a later cheaper one may pass', async () => {
    const second = { key: key('second'), count: 5, periodMs: 1_000 };
    const leases = { key: key('leases'), ceiling: 10, ttlMs: 10_000 };
    const decisions = await script.takeMany(
      [second],
      [
        { cost: 2, ids: ['a'] },
        { cost: 2, ids: ['b'] },
        { cost: 2, ids: ['c'] },
        { cost: 1, ids: ['d'] },
        { cost: 1, ids: ['e'] },
      ],
      leases,
    );
    expect(decisions.map((d) => d.refused)).to.deep.equal([0, 0, 1, 0, 1]);
    expect(decisions.map((d) => d.remaining)).to.deep.equal([3, 1, 1, 0, 0]);
    expect(decisions.map((d) => d.leasesHeld)).to.deep.equal([1, 2, 2, 3, 3]);
    expect(await services.redis.zrange(leases.key, 0, -1)).to.have.members(['a', 'b', 'd']);
    // What the batch spent is in Redis for the next run: the allowance is used up.
    expect((await script.take([second], 1)).refused).to.equal(1);
  });

  it('holds a batch to the lease ceiling, counting the leases it drops first and the ones it takes', async () => {
    const leases = { key: key('leases'), ceiling: 3, ttlMs: 10_000 };
    await script.take([], 0, { ...leases, ids: ['old-1'] });
    await script.take([], 0, { ...leases, ids: ['old-2'] });
    const decisions = await script.takeMany(
      [],
      ['x', 'y', 'z'].map((id) => ({ cost: 0, ids: [id] })),
      { ...leases, drop: ['old-1'] },
    );
    expect(decisions.map((d) => d.refused)).to.deep.equal([0, 0, 1]);
    expect(decisions.map((d) => d.leasesHeld)).to.deep.equal([2, 3, 3]);
    expect(await services.redis.zrange(leases.key, 0, -1)).to.have.members(['old-2', 'x', 'y']);
  });

  it('works after Redis forgot the script (EVALSHA falls back to EVAL)', async () => {
    await services.redis.script('FLUSH');
    const d = await script.take([{ key: key('second'), count: 1, periodMs: 1_000 }], 1);
    expect(d.refused).to.equal(0);
  });
});
