import { fromBinary } from '@bufbuild/protobuf';
import { publicFailure } from '../../common/errors.js';
import { STARTED_REPORT_DELAY_MS } from '../../common/limits.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { AttemptPhase, TaskSchema, type AttemptRef, type Task } from '../../proto/gen/trawl/v1/work_pb.js';
import { AttemptFailure } from './attempt-failure.js';
import type { PoolHandler, TaskContext } from './pool-runtime.js';
import type { ReportExtra, Reporter } from './reporter.js';
import type { ResultStore } from './result-store.js';
import { scheduleStartReport, type StartReport } from './start-report.js';

type PayloadCase = NonNullable<Task['payload']['case']>;
type PayloadOf<K extends PayloadCase> = Extract<Task['payload'], { case: K }>['value'];

/** What a pool's steps know about the attempt they run for. */
export interface AttemptScope {
  ref: AttemptRef;
  /** Epoch ms by which the attempt must be over. */
  deadlineMs: number;
  /**
   * Resolves once the attempt is known not to have finished on an earlier
   * delivery; rejects (and `signal` aborts) when it has. acquire starts in
   * the same tick as that check, so its first Redis command shares the
   * round trip; anything it must not do for a finished attempt waits for this.
   */
  admitted: Promise<void>;
  signal: AbortSignal;
}

/** An acquired input and what the finished report says about acquiring it. */
export interface Acquired<I> {
  input: I;
  report: ReportExtra;
  /**
   * When processing already began during acquire (Date.now()), for work that
   * starts it while acquire's last checks run; its time then counts from here.
   */
  processStartedMs?: number;
}

/**
 * The two steps a pool supplies; everything else about an attempt is the
 * template's. acquire throws AttemptFailure for an outcome to report (any
 * other error is redelivered); process returns the serialized result, and
 * what it throws is reported: a TrawlError with its code, anything else as
 * `processFailureCode`.
 */
export interface AttemptWork<K extends PayloadCase, I> {
  /** The payload this pool runs; a task with another is refused. */
  payload: K;
  acquire(payload: PayloadOf<K>, scope: AttemptScope): Promise<Acquired<I>>;
  process(payload: PayloadOf<K>, input: I, scope: AttemptScope): Promise<Uint8Array>;
  processFailureCode: string;
  /** Whether a successful result is announced in the response cache (`cache: true`), and for how long. */
  cacheOf?(payload: PayloadOf<K>): { identity: string; ttlSeconds: number } | null;
}

export interface AttemptDeps {
  pool: string;
  report: Reporter;
  results: ResultStore;
  keys: RedisKeys;
  /** How long an attempt runs before it reports STARTED (STARTED_REPORT_DELAY_MS unless given). */
  startedReportDelayMs?: number;
}

class AlreadyFinished extends Error {}

const PROCESS_FAILED = 'The content could not be processed';

/**
 * The life of one attempt, the same for every pool: decode the task, skip an
 * attempt whose report already went out (a redelivery), report STARTED once
 * the attempt has run for a moment (start-report.ts; an attempt that ends
 * sooner says when it started in its FINISHED report instead), check the
 * deadline, acquire the input and process it within the time left, store
 * the result, report FINISHED with the outcome, then mark the attempt
 * finished. A task that fails on its last delivery is reported as
 * INTERNAL_ERROR.
 *
 * Round trips are shared where order allows: the finished check goes out
 * with acquire's first command, STARTED is published without waiting and
 * only has to be stored before FINISHED is published, and the finished
 * marker is written after the report (a redelivery before it lands sends the
 * same FINISHED report again, which the message id and the control plane's
 * idempotent handling drop).
 */
export function createAttemptHandler<K extends PayloadCase, I>(deps: AttemptDeps, work: AttemptWork<K, I>): PoolHandler<Task> {
  const base = (ref: AttemptRef, ctx: TaskContext) => ({ jobId: ref.jobId, attemptId: ref.attemptId, tier: ref.tier, deliveryCount: ctx.deliveryCount });

  const startedReportDelayMs = deps.startedReportDelayMs ?? STARTED_REPORT_DELAY_MS;

  const finisher = (ref: AttemptRef, ctx: TaskContext, start: StartReport | null) => async (fields: ReportExtra & { ok: boolean; errorCode?: string; errorMessage?: string; resultKey?: string }) => {
    const started = start?.end();
    if (started) await started;
    const startedAt = start && !started ? { startedUnixMs: BigInt(start.at) } : {};
    await deps.report({ ...base(ref, ctx), phase: AttemptPhase.FINISHED, ...fields, ...startedAt });
    // Written after the report; nothing waits on it (see above).
    deps.results.markFinished(ref.attemptId).catch(() => undefined);
  };

  return {
    decode(data) {
      const task = fromBinary(TaskSchema, data);
      if (!task.attempt?.attemptId) throw new Error('The task names no attempt');
      return task;
    },

    async handle(task, ctx) {
      const ref = task.attempt!;
      const deadlineMs = Number(ref.deadlineUnixMs);
      const payload = task.payload.case === work.payload ? (task.payload.value as PayloadOf<K>) : undefined;
      const expired = deadlineMs <= Date.now();

      const finished = deps.results.isFinished(ref.attemptId);
      const cancel = new AbortController();
      const admitted = finished.then((done) => {
        if (!done) return;
        cancel.abort();
        throw new AlreadyFinished();
      });
      admitted.catch(() => undefined);
      const scope: AttemptScope = { ref, deadlineMs, admitted, signal: cancel.signal };
      const acquiring = payload && !expired ? work.acquire(payload, scope) : null;
      acquiring?.catch(() => undefined);

      // A redelivery of a task whose report already went out: nothing to do.
      if (await finished) return;
      const start = scheduleStartReport(() => deps.report({ ...base(ref, ctx), phase: AttemptPhase.STARTED }), startedReportDelayMs);
      const finish = finisher(ref, ctx, start);

      // An attempt that ends in an error left to redelivery sends no STARTED report either.
      try {
        if (!payload) {
          return finish({ ok: false, errorCode: 'INTERNAL_ERROR', errorMessage: `The ${deps.pool} pool does not run ${task.payload.case ?? 'empty'} tasks` });
        }
        if (expired) return finish({ ok: false, errorCode: 'TIMEOUT', errorMessage: 'The job reached its deadline before it could run' });

        let acquired: Acquired<I>;
        try {
          acquired = await acquiring!;
        } catch (err) {
          if (err instanceof AttemptFailure) return finish({ ok: false, errorCode: err.code, errorMessage: err.message, ...err.report });
          throw err;
        }

        const processStarted = acquired.processStartedMs ?? Date.now();
        let result: Uint8Array;
        try {
          result = await work.process(payload, acquired.input, scope);
        } catch (err) {
          const failure = publicFailure(err, work.processFailureCode, PROCESS_FAILED);
          return finish({ ok: false, errorCode: failure.code, errorMessage: failure.message, ...acquired.report, processMs: BigInt(Date.now() - processStarted) });
        }
        const processMs = BigInt(Date.now() - processStarted);
        const resultKey = deps.keys.result(ref.jobId, ref.attemptId);
        const cache = work.cacheOf?.(payload);
        await deps.results.put(resultKey, result, cache ? { ...cache, tier: ref.tier } : undefined);
        await finish({ ok: true, resultKey, ...acquired.report, processMs });
      } finally {
        start.end();
      }
    },

    async exhausted(task, err, ctx) {
      const ref = task.attempt!;
      await finisher(ref, ctx, null)({
        ok: false,
        errorCode: 'INTERNAL_ERROR',
        errorMessage: `The worker could not complete the task: ${err instanceof Error ? err.message : String(err)}`,
      });
    },
  };
}
