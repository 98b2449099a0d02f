import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { TrawlError } from '../../../common/errors.js';
import { ensureStreams, streamNames } from '../../../common/jetstream.js';
import { natsNames } from '../../../common/nats-names.js';
import { redisKeys } from '../../../common/redis-keys.js';
import { AttemptPhase, AttemptReportSchema, ExtractTaskSchema, TaskSchema, type AttemptReport, type Task } from '../../../proto/gen/trawl/v1/work_pb.js';
import { AttemptFailure } from '../../../workers/runtime/attempt-failure.js';
import { createAttemptHandler, type AttemptScope, type AttemptWork } from '../../../workers/runtime/attempt.js';
import type { PoolHandler } from '../../../workers/runtime/pool-runtime.js';
import { createReporter } from '../../../workers/runtime/reporter.js';
import { createResultStore } from '../../../workers/runtime/result-store.js';

const REDIS_URL = `redis://127.0.0.1:6379/${process.env.TRAWL_TEST_REDIS_DB ?? 13}`;
const prefix = `${process.env.TRAWL_TEST_STACK ?? 'test'}_attempt_`;
const names = natsNames(prefix);
const keys = redisKeys(prefix);

/** What the pool's steps saw and did, for the assertions. */
interface Trace {
  acquired: string[];
  processed: string[];
  admitted: Array<'yes' | 'no'>;
}

function work(trace: Trace, steps: Partial<Pick<AttemptWork<'fetch', string>, 'acquire' | 'process'>> = {}): AttemptWork<'fetch', string> {
  return {
    payload: 'fetch',
    processFailureCode: 'EXTRACTION_FAILED',
    async acquire(task, scope: AttemptScope) {
      trace.acquired.push(task.url);
      await scope.admitted.then(
        () => trace.admitted.push('yes'),
        (err: unknown) => {
          trace.admitted.push('no');
          throw err;
        },
      );
      return steps.acquire ? steps.acquire(task, scope) : { input: `page of ${task.url}`, report: { statusCode: 200 } };
    },
    async process(task, input, scope) {
      trace.processed.push(input);
      return steps.process ? steps.process(task, input, scope) : new TextEncoder().encode(`result of ${input}`);
    },
  };
}

function fetchTask(extra: { deadlineMs?: number; payload?: Task['payload'] } = {}): Task {
  return create(TaskSchema, {
    attempt: { jobId: randomUUID(), attemptId: randomUUID(), attemptNumber: 1, tier: '1', pool: 'fetch-t1', deadlineUnixMs: BigInt(extra.deadlineMs ?? Date.now() + 30_000) },
    payload: extra.payload ?? { case: 'fetch', value: { url: 'https://example.com/', method: 'GET', timeoutMs: 5_000 } },
  });
}

describe('runtime/the attempt template', function () {
  this.timeout(30_000);
  let nc: NatsConnection;
  let js: JetStreamClient;
  let redis: Redis;
  let reports: Subscription;
  const seen: AttemptReport[] = [];

  before(async () => {
    nc = await connect({ servers: 'nats://127.0.0.1:4222' });
    const jsm = await jetstreamManager(nc);
    for (const stream of streamNames(names)) await jsm.streams.delete(stream).catch(() => undefined);
    await ensureStreams(jsm, names);
    js = jetstream(nc);
    redis = new Redis(REDIS_URL);
    reports = nc.subscribe(names.reportsSubject, { callback: (_err, msg) => void seen.push(fromBinary(AttemptReportSchema, msg.data)) });
  });
  after(async () => {
    reports.unsubscribe();
    const jsm = await jetstreamManager(nc);
    for (const stream of streamNames(names)) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
    await redis.quit();
  });

  let trace: Trace;
  beforeEach(() => {
    seen.length = 0;
    trace = { acquired: [], processed: [], admitted: [] };
  });

  const handlerFor = (w: AttemptWork<'fetch', string>, startedReportDelayMs?: number): PoolHandler<Task> =>
    createAttemptHandler(
      {
        pool: 'fetch-t1',
        report: createReporter(js, names, { pool: 'fetch-t1', workerId: 'w1' }),
        results: createResultStore(redis, { keys, ttlSeconds: 60 }),
        keys,
        ...(startedReportDelayMs === undefined ? {} : { startedReportDelayMs }),
      },
      w,
    );
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const run = async (handler: PoolHandler<Task>, task: Task, deliveryCount = 1) => handler.handle(handler.decode(toBinary(TaskSchema, task)), { deliveryCount });
  const reportsOf = async (attemptId: string, count: number) => {
    for (let i = 0; i < 100 && seen.filter((r) => r.attemptId === attemptId).length < count; i++) await new Promise((r) => setTimeout(r, 20));
    return seen.filter((r) => r.attemptId === attemptId);
  };
  const finishedMark = async (attemptId: string) => {
    for (let i = 0; i < 50 && !(await redis.exists(keys.attemptFinished(attemptId))); i++) await new Promise((r) => setTimeout(r, 10));
    return (await redis.exists(keys.attemptFinished(attemptId))) === 1;
  };

  it('reports an attempt that ends quickly once, FINISHED with the time it started, stores the result under its key and marks the attempt finished', async () => {
    const task = fetchTask();
    const before = Date.now();
    await run(handlerFor(work(trace)), task);
    const after = Date.now();
    await sleep(100);
    const sent = await reportsOf(task.attempt!.attemptId, 1);
    expect(sent.map((r) => r.phase)).to.deep.equal([AttemptPhase.FINISHED]);
    const finished = sent[0]!;
    expect(finished).to.include({ phase: AttemptPhase.FINISHED, ok: true, statusCode: 200, tier: '1', pool: 'fetch-t1', deliveryCount: 1 });
    expect(Number(finished.startedUnixMs)).to.be.within(before, after);
    expect(finished.resultKey).to.equal(keys.result(task.attempt!.jobId, task.attempt!.attemptId));
    expect(await redis.get(finished.resultKey)).to.equal('result of page of https://example.com/');
    expect(await finishedMark(task.attempt!.attemptId)).to.equal(true);
    expect(trace.admitted).to.deep.equal(['yes']);
  });

  it('reports STARTED once an attempt has run past the delay, then FINISHED without a start time', async () => {
    const task = fetchTask();
    const slow = work(trace, { process: async (_task, input) => (await sleep(300), new TextEncoder().encode(`result of ${input}`)) });
    await run(handlerFor(slow, 50), task, 2);
    const [started, finished] = await reportsOf(task.attempt!.attemptId, 2);
    expect(started!).to.include({ phase: AttemptPhase.STARTED, deliveryCount: 2 });
    expect(finished!).to.include({ phase: AttemptPhase.FINISHED, ok: true, deliveryCount: 2, startedUnixMs: 0n });
  });

  it('skips a redelivered attempt whose report already went out, telling acquire not to go on', async () => {
    const task = fetchTask();
    await redis.set(keys.attemptFinished(task.attempt!.attemptId), '1');
    await run(handlerFor(work(trace)), task, 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.filter((r) => r.attemptId === task.attempt!.attemptId)).to.deep.equal([]);
    expect(trace.admitted).to.deep.equal(['no']);
    expect(trace.processed).to.deep.equal([]);
  });

  it('refuses a payload the pool does not run with INTERNAL_ERROR, without acquiring', async () => {
    const task = fetchTask({ payload: { case: 'extract', value: create(ExtractTaskSchema, { sourceUrl: 'https://example.com/', inputKey: 'k', contentType: 'html' }) } });
    await run(handlerFor(work(trace)), task);
    const finished = (await reportsOf(task.attempt!.attemptId, 1)).find((r) => r.phase === AttemptPhase.FINISHED)!;
    expect(finished).to.include({ ok: false, errorCode: 'INTERNAL_ERROR' });
    expect(finished.errorMessage).to.contain('extract');
    expect(trace.acquired).to.deep.equal([]);
  });

  it('fails an attempt past its deadline with TIMEOUT, without acquiring', async () => {
    const task = fetchTask({ deadlineMs: Date.now() - 1 });
    await run(handlerFor(work(trace)), task);
    const finished = (await reportsOf(task.attempt!.attemptId, 1)).find((r) => r.phase === AttemptPhase.FINISHED)!;
    expect(finished).to.include({ ok: false, errorCode: 'TIMEOUT' });
    expect(trace.acquired).to.deep.equal([]);
  });

  it('reports an AttemptFailure from acquire with its code and fields', async () => {
    const task = fetchTask();
    await run(handlerFor(work(trace, { acquire: async () => Promise.reject(new AttemptFailure('BLOCKED', 'The target refused this client (403)', { statusCode: 403, escalate: true })) })), task);
    const finished = (await reportsOf(task.attempt!.attemptId, 1)).find((r) => r.phase === AttemptPhase.FINISHED)!;
    expect(finished).to.include({ ok: false, errorCode: 'BLOCKED', statusCode: 403, escalate: true });
    expect(trace.processed).to.deep.equal([]);
  });

  it('leaves any other acquire error to redelivery: nothing is reported or marked, and the STARTED report is called off', async () => {
    const task = fetchTask();
    const err = await run(handlerFor(work(trace, { acquire: async () => Promise.reject(new Error('Redis went away')) }), 50), task).catch((e: Error) => e);
    expect((err as Error).message).to.equal('Redis went away');
    await sleep(200);
    expect(seen.filter((r) => r.attemptId === task.attempt!.attemptId)).to.deep.equal([]);
    expect(await redis.exists(keys.attemptFinished(task.attempt!.attemptId))).to.equal(0);
  });

  it('maps what processing throws: a TrawlError keeps its code, anything else is the pool failure code', async () => {
    const typed = fetchTask();
    await run(handlerFor(work(trace, { process: async () => Promise.reject(new TrawlError('UPSTREAM_ERROR', 'The LLM provider is unreachable')) })), typed);
    const plain = fetchTask();
    await run(handlerFor(work(trace, { process: async () => Promise.reject(new Error('bad markup')) })), plain);
    const typedReport = (await reportsOf(typed.attempt!.attemptId, 1)).find((r) => r.phase === AttemptPhase.FINISHED)!;
    const plainReport = (await reportsOf(plain.attempt!.attemptId, 1)).find((r) => r.phase === AttemptPhase.FINISHED)!;
    expect(typedReport).to.include({ ok: false, errorCode: 'UPSTREAM_ERROR', statusCode: 200 });
    expect(plainReport).to.include({ ok: false, errorCode: 'EXTRACTION_FAILED', errorMessage: 'bad markup' });
  });

  it('reports a task that failed on its last delivery as INTERNAL_ERROR', async () => {
    const task = fetchTask();
    const handler = handlerFor(work(trace));
    await handler.exhausted(task, new Error('kept crashing'), { deliveryCount: 5 });
    const [finished] = await reportsOf(task.attempt!.attemptId, 1);
    expect(finished).to.include({ phase: AttemptPhase.FINISHED, ok: false, errorCode: 'INTERNAL_ERROR', deliveryCount: 5 });
    expect(finished!.errorMessage).to.contain('kept crashing');
  });

  it('sends a task that names no attempt to the dead letters (decode refuses it)', () => {
    const handler = handlerFor(work(trace));
    expect(() => handler.decode(toBinary(TaskSchema, create(TaskSchema, {})))).to.throw('names no attempt');
  });
});
