import { expect } from 'chai';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureStreams, streamNames } from '../../../common/jetstream.js';
import { createLogger } from '../../../common/logger.js';
import { natsNames } from '../../../common/nats-names.js';
import { eventually } from '../../support/webhooks.js';
import { ensurePoolConsumer, pullRetryDelayMs, startPool, type PoolDeps, type PoolHandler, type PoolOptions, type RunningPool } from '../../../workers/runtime/pool-runtime.js';

const prefix = `${process.env.TRAWL_TEST_STACK ?? 'test'}_poolrt_`;
const names = natsNames(prefix);
const POOL = 'probe';
/** Far longer than any wait below: a task stuck with a pool that stopped would show up only after it. */
const ACK_WAIT_MS = 60_000;

const text = new TextDecoder();
/** Waits until `check` holds (up to 8 s). */
const until = (check: () => boolean, what: string) => eventually(async () => (check() ? true : undefined), 8_000, what);

describe('the pool runtime', function () {
  this.timeout(30_000);
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let deps: PoolDeps;
  const running: RunningPool[] = [];

  before(async () => {
    nc = await connect({ servers: 'nats://127.0.0.1:4222' });
    jsm = await jetstreamManager(nc);
    js = jetstream(nc);
    deps = { js, jsm, names, log: createLogger('pool-runtime-test', 'error') };
  });
  beforeEach(async () => {
    for (const stream of streamNames(names)) await jsm.streams.delete(stream).catch(() => undefined);
    await ensureStreams(jsm, names);
  });
  afterEach(async () => {
    for (const pool of running.splice(0)) await pool.drain();
  });
  after(async () => {
    for (const stream of streamNames(names)) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  /** A handler that records what it runs and holds each task until released. */
  function holdingHandler() {
    const started: string[] = [];
    const done: string[] = [];
    let active = 0;
    let most = 0;
    const held: Array<() => void> = [];
    const handler: PoolHandler<string> = {
      decode: (data) => text.decode(data),
      async handle(task) {
        started.push(task);
        most = Math.max(most, ++active);
        await new Promise<void>((r) => held.push(r));
        active--;
        done.push(task);
      },
      exhausted: async () => undefined,
    };
    const releaseAll = () => held.splice(0).forEach((r) => r());
    return { handler, started, done, releaseAll, most: () => most };
  }

  const options = (concurrency: number): PoolOptions => ({ pool: POOL, concurrency, ackWaitMs: ACK_WAIT_MS, maxDeliver: 3, drainTimeoutMs: 2_000 });
  const publish = (task: string) => js.publish(names.workSubject(POOL), new TextEncoder().encode(task));
  const start = async (handler: PoolHandler<string>, concurrency: number) => {
    const pool = await startPool(deps, options(concurrency), handler);
    running.push(pool);
    return pool;
  };

  it('runs at most its concurrency at once, and pulls again for each slot that frees', async () => {
    const h = holdingHandler();
    await start(h.handler, 3);
    for (let i = 0; i < 9; i++) await publish(`task ${i}`);
    await until(() => h.started.length === 3, 'the first three tasks');
    // Released a slot at a time: each freed slot is filled from the stream, never more than three at once.
    while (h.done.length < 9) {
      const before = h.started.length;
      h.releaseAll();
      if (before < 9) await until(() => h.started.length > before, 'the next tasks');
      else await until(() => h.done.length === 9, 'the last tasks');
    }
    expect(h.most()).to.equal(3);
    expect([...h.started].sort()).to.deep.equal(Array.from({ length: 9 }, (_, i) => `task ${i}`).sort());
  });

  it('pulls again at once after a pull that failed, and waits between pulls only when they keep failing', () => {
    expect(pullRetryDelayMs(1)).to.equal(0);
    expect(pullRetryDelayMs(2)).to.be.greaterThan(0);
    expect(pullRetryDelayMs(7)).to.equal(pullRetryDelayMs(2));
  });

  it('keeps pulling through failed pulls: a task published once its consumer is back is taken', async () => {
    const h = holdingHandler();
    await start(h.handler, 2);
    await new Promise((r) => setTimeout(r, 300));
    // The consumer goes away under the pool: its pulls fail, one after another.
    await jsm.consumers.delete(names.workStream, names.poolConsumer(POOL));
    await new Promise((r) => setTimeout(r, 1_500));
    await ensurePoolConsumer(deps, options(2));
    await publish('after the failures');
    await until(() => h.started.includes('after the failures'), 'the task published once the consumer was back');
    h.releaseAll();
  });

  it('takes a task published after it has sat idle for several pulls', async () => {
    const h = holdingHandler();
    await start(h.handler, 2);
    await new Promise((r) => setTimeout(r, 2_500));
    await publish('late task');
    await until(() => h.started.includes('late task'), 'the late task');
    h.releaseAll();
  });

  it('drains at once when idle, and a task published after the drain goes to the next pool, not to the drained one', async () => {
    const first = holdingHandler();
    const pool = await startPool(deps, options(4), first.handler);
    await new Promise((r) => setTimeout(r, 300));
    const drained = Date.now();
    await pool.drain();
    expect(Date.now() - drained).to.be.below(10_000);

    await publish('after the drain');
    const second = holdingHandler();
    await start(second.handler, 4);
    // Not left with the stopped pulls of the drained pool, where it would wait out the ack wait (60 s).
    await until(() => second.started.includes('after the drain'), 'the task at the second pool');
    expect(first.started).to.deep.equal([]);
    second.releaseAll();
  });
});
