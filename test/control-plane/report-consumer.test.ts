import { expect } from 'chai';
import { createLogger } from '../../common/logger.js';
import { createJobLoader } from '../../control-plane/jobs/job-view.js';
import { startJobSignals, type JobSignal, type JobSignals } from '../../control-plane/jobs/job-signals.js';
import { startReportConsumer } from '../../control-plane/scheduler/report-consumer.js';
import { createDispatcher } from '../../control-plane/scheduler/dispatcher.js';
import { endedJob } from '../../control-plane/scheduler/job-run.js';
import { createReporter } from '../../workers/runtime/reporter.js';
import { AttemptPhase } from '../../proto/gen/trawl/v1/work_pb.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from './support/database.js';

describe('the report consumer', function () {
  this.timeout(30_000);
  const log = createLogger('report-consumer-test', 'fatal');
  let services: ControlPlaneServices;
  let signals: JobSignals;
  let consumer: { stop(): Promise<void> };
  const reads: string[] = [];
  before(async () => {
    services = await getControlPlaneServices();
    signals = startJobSignals(services.nc, services.names);
    const dispatcher = createDispatcher({ js: services.js, names: services.names, pool: services.pool, log });
    consumer = await startReportConsumer({
      ...services,
      jsm: await services.js.jetstreamManager(),
      dispatcher,
      signals,
      log,
      tierMemory: { remember: async () => undefined },
      // What the result store answers: bytes named after the key, so a test can tell where an answer's result came from.
      readResult: async (key) => {
        reads.push(key);
        return Buffer.from(`stored under ${key}`);
      },
      dropParkedInput: (jobId) => services.redis.del(...services.keys.parkedInputs(jobId)),
    });
  });
  after(async () => {
    await consumer.stop();
    signals.stop();
  });

  const finished = (job: { id: string }, attempt: { id: string }, resultKey: string) =>
    createReporter(services.js, services.names, { pool: 'fetch-t1', workerId: 'test-worker' })({
      jobId: job.id, attemptId: attempt.id, tier: '1', phase: AttemptPhase.FINISHED, ok: true, resultKey, statusCode: 200,
    });

  it('reads the result of a job a call here waits on while the job is settled, and hands it over with the end', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    const admitted = await admitTestJob(services, caller);
    const resultKey = `consumer-test:${admitted.job.id}`;
    const waiter = signals.watch(admitted.job.id);
    try {
      await finished(admitted.job, admitted.attempt, resultKey);
      const signal = (await waiter.wait(10_000, (s) => s.kind === 'ended')) as Extract<JobSignal, { kind: 'ended' }> | null;
      expect(signal?.record?.status).to.equal('succeeded');
      expect(reads).to.include(resultKey);
      // Redis holds nothing under this key: the answer's result is the one read while settling, not a second read.
      const loaded = await createJobLoader({ pool: services.pool, redis: services.redis, resultTtlSeconds: 60 }).load(admitted.job.id, caller.accountId, endedJob(signal));
      expect(Buffer.from(loaded!.storedResult!).toString()).to.equal(`stored under ${resultKey}`);
    } finally {
      waiter.close();
    }
  });

  it('drops what the job parked for its workers (a session\'s cookies, the caller\'s proxy) once it ends', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    const advanced = { session_id: '33333333-3333-4333-8333-333333333333', use_own_proxy: true };
    const admitted = await admitTestJob(services, caller, { request: { url: 'https://example.com/', mode: 'auto', formats: ['markdown'], timeout: 30, advanced } });
    const parked = [services.keys.sessionCookies(admitted.job.id), services.keys.ownProxy(admitted.job.id)];
    for (const key of parked) await services.redis.set(key, 'secret', 'EX', 600);
    const waiter = signals.watch(admitted.job.id);
    try {
      await finished(admitted.job, admitted.attempt, `consumer-test:${admitted.job.id}`);
      expect((await waiter.wait(10_000, (s) => s.kind === 'ended'))?.kind).to.equal('ended');
    } finally {
      waiter.close();
    }
    let left = parked.length;
    for (let i = 0; i < 100 && left > 0; i++) {
      left = await services.redis.exists(...parked);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(left).to.equal(0);
  });

  it('reads nothing for a job no call here waits on', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    const admitted = await admitTestJob(services, caller);
    const resultKey = `consumer-test:${admitted.job.id}`;
    await finished(admitted.job, admitted.attempt, resultKey);
    for (let i = 0; i < 100; i++) {
      const { rows } = await services.pool.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [admitted.job.id]);
      if (rows[0]?.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { rows } = await services.pool.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [admitted.job.id]);
    expect(rows[0]!.status).to.equal('succeeded');
    expect(reads).not.to.include(resultKey);
  });
});
