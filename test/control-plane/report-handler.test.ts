import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { createLogger } from '../../common/logger.js';
import { AttemptPhase, AttemptReportSchema } from '../../proto/gen/trawl/v1/work_pb.js';
import type { AdmittedJob } from '../../control-plane/jobs/admission.js';
import { createStartRecorder } from '../../control-plane/jobs/lifecycle.js';
import { buildTask } from '../../control-plane/scheduler/dispatcher.js';
import { applyAttemptReport, type ReportDeps } from '../../control-plane/scheduler/report-handler.js';
import { createTierMemory, type TierMemory } from '../../control-plane/scrape/tier-memory.js';
import { balanceOf } from '../support/api.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices, type TestCaller } from './support/database.js';

describe('attempt reports on a two-tier plan (Postgres)', function () {
  this.timeout(30_000);
  let services: ControlPlaneServices;
  let deps: ReportDeps;
  let tierMemory: TierMemory;

  before(async () => {
    services = await getControlPlaneServices();
    tierMemory = createTierMemory({ redis: services.redis, keys: services.keys, ttlSeconds: 60 });
    deps = { pool: services.pool, started: createStartRecorder(services.pool), log: createLogger('report-test', 'fatal'), tierMemory };
  });

  const admitTwoTierJob = (caller: TestCaller) =>
    admitTestJob(services, caller, { sync: true, tierPlan: ['1', '2'], reserveMicrocents: 300, estimatedTier: '2' });

  const report = (job: AdmittedJob, attempt: { id: string; tier: string; pool: string }, fields: MessageInitShape<typeof AttemptReportSchema>) =>
    create(AttemptReportSchema, {
      jobId: job.job.id,
      attemptId: attempt.id,
      tier: attempt.tier,
      pool: attempt.pool,
      workerId: 'worker-test',
      phase: AttemptPhase.FINISHED,
      fetchMs: 5n,
      processMs: 2n,
      ...fields,
    });
  const blocked = { ok: false, escalate: true, errorCode: 'BLOCKED', errorMessage: 'blocked by the site', statusCode: 403 };

  const jobRow = async (jobId: string) =>
    (
      await services.pool.query<{ status: string; attempts: number; current_tier: string; charged_microcents: string; refunded_microcents: string; error_code: string | null; error_details: Record<string, unknown> | null }>(
        'SELECT status, attempts, current_tier, charged_microcents, refunded_microcents, error_code, error_details FROM jobs WHERE id = $1',
        [jobId],
      )
    ).rows[0]!;
  const ledger = async (jobId: string) =>
    (
      await services.pool.query<{ kind: string; amount_microcents: string }>('SELECT kind, amount_microcents FROM ledger_entries WHERE reference = $1 ORDER BY id', [
        `job:${jobId}`,
      ])
    ).rows.map((r) => ({ kind: r.kind, amount: Number(r.amount_microcents) }));

  it('escalates a blocked tier-1 attempt to tier 2 once, then settles the tier-2 success at the tier-2 price', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTwoTierJob(caller);
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(9_700);

    await applyAttemptReport(deps, report(job, job.attempt, { phase: AttemptPhase.STARTED, deliveryCount: 1 }));
    expect((await jobRow(job.job.id)).status).to.equal('running');

    const first = await applyAttemptReport(deps, report(job, job.attempt, blocked));
    expect(first.dispatch).to.have.length(1);
    const next = first.dispatch[0]!.attempt;
    expect(next).to.include({ tier: '2', pool: 'fetch-t2', attempt_number: 2, price_microcents: 300 });
    expect(first.signals).to.deep.equal([{ jobId: job.job.id, signal: { kind: 'escalated', tier: '2' } }]);
    const task = buildTask(first.dispatch[0]!.job, next);
    expect(task.attempt).to.include({ jobId: job.job.id, attemptId: next.id, tier: '2', pool: 'fetch-t2', attemptNumber: 2 });
    expect(task.payload.case).to.equal('fetch');
    expect(await jobRow(job.job.id)).to.include({ status: 'running', attempts: 2, current_tier: '2' });

    const redelivered = await applyAttemptReport(deps, report(job, job.attempt, blocked));
    expect(redelivered).to.deep.equal({ dispatch: [], signals: [] });
    const attempts = await services.pool.query('SELECT 1 FROM job_attempts WHERE job_id = $1', [job.job.id]);
    expect(attempts.rowCount).to.equal(2);
    expect(await jobRow(job.job.id)).to.include({ status: 'running', attempts: 2 });

    const success = report(job, next, { ok: true, resultKey: 'result-key', statusCode: 200, bytes: 1234n });
    const settled = await applyAttemptReport(deps, success);
    expect(settled.dispatch).to.deep.equal([]);
    expect(settled.signals.map((s) => [s.jobId, s.signal.kind])).to.deep.equal([[job.job.id, 'ended']]);
    // The ended signal carries the job as it ended: no second read for whoever waits on it.
    const ended = settled.signals[0]!.signal;
    if (ended.kind !== 'ended' || !ended.record) throw new Error('the ended signal carries no record');
    expect(ended.record).to.include({ id: job.job.id, status: 'succeeded', charged_microcents: '300', balance_microcents: '9700' });
    expect(ended.record.attempt_list.map((a) => [a.tier, a.status, a.result, a.credits_microcents])).to.deep.equal([
      ['1', 'failed', 'blocked', 0],
      ['2', 'succeeded', 'success', 300],
    ]);
    expect(await jobRow(job.job.id)).to.include({ status: 'succeeded', charged_microcents: '300', refunded_microcents: '0' });
    expect(await ledger(job.job.id)).to.deep.equal([
      { kind: 'reserve', amount: -300 },
      { kind: 'settle', amount: 0 },
    ]);
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(9_700);
    // The account's next scrapes of the host start at the tier that worked; other accounts' do not.
    expect(await tierMemory.recall(caller.accountId, 'https://EXAMPLE.com/other')).to.equal('2');
    expect(await tierMemory.recall(caller.accountId, 'https://example.org/')).to.equal(undefined);
    expect(await tierMemory.recall((await createTestCaller(services, 0)).accountId, 'https://example.com/')).to.equal(undefined);

    // The success redelivered changes nothing either.
    expect(await applyAttemptReport(deps, success)).to.deep.equal({ dispatch: [], signals: [] });
    expect(await ledger(job.job.id)).to.have.length(2);
  });

  it('returns the unused part of a larger reservation when a cheaper tier succeeds', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTestJob(services, caller, { tierPlan: ['1', '2', '3'], reserveMicrocents: 2_000, estimatedTier: '3' });
    const escalated = await applyAttemptReport(deps, report(job, job.attempt, blocked));
    const next = escalated.dispatch[0]!.attempt;
    await applyAttemptReport(deps, report(job, next, { ok: true, resultKey: 'k', statusCode: 200 }));
    expect(await ledger(job.job.id)).to.deep.equal([
      { kind: 'reserve', amount: -2_000 },
      { kind: 'settle', amount: 1_700 },
    ]);
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(9_700);
  });

  it('remembers nothing for a job that succeeded on the tier it started at', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTwoTierJob(caller);
    await applyAttemptReport(deps, report(job, job.attempt, { ok: true, resultKey: 'k', statusCode: 200 }));
    expect(await tierMemory.recall(caller.accountId, 'https://example.com/')).to.equal(undefined);
  });

  it('fails a tier-2 attempt with no tier left and refunds the whole reservation, once', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTwoTierJob(caller);
    const escalated = await applyAttemptReport(deps, report(job, job.attempt, blocked));
    const next = escalated.dispatch[0]!.attempt;

    const failed = report(job, next, blocked);
    const ended = await applyAttemptReport(deps, failed);
    expect(ended.dispatch).to.deep.equal([]);
    expect(ended.signals.map((s) => [s.jobId, s.signal.kind])).to.deep.equal([[job.job.id, 'ended']]);
    const row = await jobRow(job.job.id);
    expect(row).to.include({ status: 'failed', charged_microcents: '0', refunded_microcents: '300', error_code: 'BLOCKED_BY_ANTIBOT' });
    expect(row.error_details).to.deep.equal({ last_tier: '2', attempts: 2, target_status_code: 403 });
    expect(await ledger(job.job.id)).to.deep.equal([
      { kind: 'reserve', amount: -300 },
      { kind: 'refund', amount: 300 },
    ]);
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(10_000);

    expect(await applyAttemptReport(deps, failed)).to.deep.equal({ dispatch: [], signals: [] });
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(10_000);
  });

  it('answers a JavaScript shell no planned tier renders with the shell only when the caller chose that, and fails it refunded otherwise', async () => {
    const caller = await createTestCaller(services, 10_000);
    const shell = { ok: true, classification: 'js_shell', resultKey: 'result:shell', statusCode: 200 };
    const admitShell = (request: Record<string, unknown>) =>
      admitTestJob(services, caller, { tierPlan: ['1'], request: { url: 'https://example.com/', mode: 'auto', formats: ['markdown'], timeout: 30, ...request } });

    // fail_fast cut the plan to tier 1: an empty shell charged as a success would answer nothing.
    const fast = await admitShell({ costControls: { failFast: true } });
    await applyAttemptReport(deps, report(fast, fast.attempt, shell));
    const failed = await jobRow(fast.job.id);
    expect(failed).to.include({ status: 'failed', charged_microcents: '0', error_code: 'EXTRACTION_FAILED' });

    // Rendering turned off: the shell is the answer asked for, charged at its tier.
    const unrendered = await admitShell({ advanced: { render_js: false } });
    await applyAttemptReport(deps, report(unrendered, unrendered.attempt, shell));
    expect(await jobRow(unrendered.job.id)).to.include({ status: 'succeeded', charged_microcents: '200' });
    const capped = await admitShell({ costControls: { maxTier: '2' } });
    await applyAttemptReport(deps, report(capped, capped.attempt, shell));
    expect(await jobRow(capped.job.id)).to.include({ status: 'succeeded' });
    const posted = await admitShell({ method: 'POST', body: '{}' });
    await applyAttemptReport(deps, report(posted, posted.attempt, shell));
    expect(await jobRow(posted.job.id)).to.include({ status: 'succeeded' });
  });

  it('sends an attempt that met a captcha straight to tier 5, and no other failure to it', async () => {
    const caller = await createTestCaller(services, 100_000);
    const plan = { tierPlan: ['1', '2', '3', '4', '5'], reserveMicrocents: 20_000, estimatedTier: '5' };
    const captcha = { ok: false, escalate: true, errorCode: 'CHALLENGE_DETECTED', errorMessage: 'a captcha', statusCode: 200, classification: 'captcha' };
    const met = await admitTestJob(services, caller, plan);
    const escalated = await applyAttemptReport(deps, report(met, met.attempt, captcha));
    expect(escalated.dispatch[0]!.attempt).to.include({ tier: '5', pool: 'captcha', price_microcents: 20_000 });

    const other = await admitTestJob(services, caller, plan);
    const blockedOnce = await applyAttemptReport(deps, report(other, other.attempt, blocked));
    expect(blockedOnce.dispatch[0]!.attempt.tier).to.equal('2');
    const atBrowser = await admitTestJob(services, caller, { ...plan, tierPlan: ['4', '5'] });
    const ended = await applyAttemptReport(deps, report(atBrowser, atBrowser.attempt, blocked));
    expect(ended.dispatch).to.deep.equal([]);
    expect((await jobRow(atBrowser.job.id)).error_code).to.equal('BLOCKED_BY_ANTIBOT');
  });

  /** The job's events in the order the relay publishes them, with their dates (ms). */
  const events = async (jobId: string) =>
    (
      await services.pool.query<{ type: string; payload: Record<string, unknown>; created_at: Date }>(
        "SELECT type, payload, created_at FROM event_outbox WHERE payload->>'job_id' = $1 ORDER BY created_at",
        [jobId],
      )
    ).rows;
  const startedAt = async (jobId: string) =>
    (
      await services.pool.query<{ job: Date | null; attempt: Date | null; deliveries: number }>(
        'SELECT j.started_at AS job, a.started_at AS attempt, a.deliveries FROM jobs j JOIN job_attempts a ON a.job_id = j.id WHERE j.id = $1 ORDER BY a.attempt_number LIMIT 1',
        [jobId],
      )
    ).rows[0]!;

  it('records the start of an attempt that sent no STARTED report with its end: job.started dated when the worker took it up, before job.completed', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTwoTierJob(caller);
    await new Promise((r) => setTimeout(r, 30));
    const tookUp = Date.now() - 10;
    const success = report(job, job.attempt, { ok: true, resultKey: 'k', statusCode: 200, startedUnixMs: BigInt(tookUp), deliveryCount: 2 });
    const settled = await applyAttemptReport(deps, success);
    expect(settled.signals.map((s) => s.signal.kind)).to.deep.equal(['ended']);
    const at = await startedAt(job.job.id);
    expect(at.job?.getTime()).to.equal(tookUp);
    expect(at.attempt?.getTime()).to.equal(tookUp);
    expect(at.deliveries).to.equal(2);
    const recorded = await events(job.job.id);
    expect(recorded.map((e) => e.type)).to.deep.equal(['job.started', 'job.completed']);
    expect(recorded[0]!.created_at.getTime()).to.equal(tookUp);
    expect(recorded[0]!.payload).to.include({ status: 'running', tier: '1', attempt: 1, started_at: new Date(tookUp).toISOString() });
    expect((recorded[1]!.payload['timing'] as Record<string, unknown>)['started_at']).to.equal(new Date(tookUp).toISOString());

    // The report redelivered records nothing twice.
    expect(await applyAttemptReport(deps, success)).to.deep.equal({ dispatch: [], signals: [] });
    expect((await events(job.job.id)).map((e) => e.type)).to.deep.equal(['job.started', 'job.completed']);
  });

  it('starts a job whose quick first attempt escalates, once: job.started names that attempt, and the next attempt\'s STARTED adds nothing', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTwoTierJob(caller);
    await new Promise((r) => setTimeout(r, 30));
    const tookUp = Date.now() - 10;
    const escalated = await applyAttemptReport(deps, report(job, job.attempt, { ...blocked, startedUnixMs: BigInt(tookUp) }));
    const next = escalated.dispatch[0]!.attempt;
    expect(await jobRow(job.job.id)).to.include({ status: 'running', attempts: 2, current_tier: '2' });
    expect((await startedAt(job.job.id)).job?.getTime()).to.equal(tookUp);

    await applyAttemptReport(deps, report(job, next, { phase: AttemptPhase.STARTED, deliveryCount: 1 }));
    await applyAttemptReport(deps, report(job, next, { ok: true, resultKey: 'k', statusCode: 200 }));
    const recorded = await events(job.job.id);
    expect(recorded.map((e) => e.type)).to.deep.equal(['job.started', 'job.completed']);
    expect(recorded[0]!.payload).to.include({ tier: '1', attempt: 1 });
    expect((await jobRow(job.job.id)).status).to.equal('succeeded');
  });

  it('keeps a reported start time between the job\'s creation and its end (a worker\'s clock off either way)', async () => {
    const caller = await createTestCaller(services, 10_000);
    const ahead = await admitTwoTierJob(caller);
    await applyAttemptReport(deps, report(ahead, ahead.attempt, { ok: true, resultKey: 'k', statusCode: 200, startedUnixMs: BigInt(Date.now() + 60_000) }));
    const behind = await admitTwoTierJob(caller);
    await applyAttemptReport(deps, report(behind, behind.attempt, { ok: true, resultKey: 'k', statusCode: 200, startedUnixMs: BigInt(Date.now() - 60_000) }));
    for (const job of [ahead, behind]) {
      const row = (
        await services.pool.query<{ created_at: Date; started_at: Date; completed_at: Date }>('SELECT created_at, started_at, completed_at FROM jobs WHERE id = $1', [job.job.id])
      ).rows[0]!;
      expect(row.started_at.getTime()).to.be.at.least(row.created_at.getTime());
      expect(row.started_at.getTime()).to.be.at.most(row.completed_at.getTime());
      expect((await events(job.job.id)).map((e) => e.type)).to.deep.equal(['job.started', 'job.completed']);
    }
  });

  it('ignores a late report for a job that has already ended', async () => {
    const caller = await createTestCaller(services, 10_000);
    const job = await admitTwoTierJob(caller);
    await applyAttemptReport(deps, report(job, job.attempt, { ok: false, escalate: false, errorCode: 'TARGET_NOT_FOUND', statusCode: 404 }));
    expect((await jobRow(job.job.id)).status).to.equal('failed');
    const late = await applyAttemptReport(deps, report(job, job.attempt, { ok: true, resultKey: 'k', statusCode: 200 }));
    expect(late).to.deep.equal({ dispatch: [], signals: [] });
    expect(await jobRow(job.job.id)).to.include({ status: 'failed', charged_microcents: '0' });
    expect(await balanceOf(services.pool, caller.accountId)).to.equal(10_000);
  });
});
