import type { Redis } from 'ioredis';
import { PARKED_INPUT_GRACE_SECONDS } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import type { AdmittedJob } from '../jobs/admission.js';
import type { JobRecord } from '../jobs/job-store.js';
import type { EndedJob, JobSignal, JobSignals } from '../jobs/job-signals.js';
import type { Dispatcher } from './dispatcher.js';

/** Input a worker reads from Redis instead of from its task: a large request body, content to extract, a stored session's cookies. */
export interface ParkedInput {
  key: string;
  value: string;
}

/**
 * Parks the job's inputs for the worker until shortly after the job's
 * deadline (the report consumer drops them when the job ends), admits the
 * job, and removes the inputs again when admission fails.
 */
export async function admitWithInput(redis: Redis, inputs: readonly ParkedInput[], deadline: Date, admit: () => Promise<AdmittedJob>): Promise<AdmittedJob> {
  if (inputs.length > 0) {
    const ttlSeconds = Math.max(1, Math.ceil((deadline.getTime() - Date.now()) / 1000)) + PARKED_INPUT_GRACE_SECONDS;
    const parking = redis.multi();
    for (const input of inputs) parking.set(input.key, input.value, 'EX', ttlSeconds);
    await parking.exec();
  }
  try {
    return await admit();
  } catch (err) {
    if (inputs.length > 0) await redis.del(...inputs.map((i) => i.key));
    throw err;
  }
}

/** Whether a job parked input for its workers: a large body or extract content, a stored session's cookies, the caller's proxy. */
export function parkedInput(record: Pick<JobRecord, 'input_key' | 'request'>): boolean {
  const advanced = record.request?.['advanced'] as Record<string, unknown> | undefined;
  return record.input_key !== null || typeof advanced?.['session_id'] === 'string' || advanced?.['use_own_proxy'] === true;
}

export interface JobWait {
  timeoutMs: number;
  accept(signal: JobSignal): boolean;
}

/**
 * Publishes an admitted job's first attempt and, when asked, waits for the
 * first signal `accept` takes (null at the timeout). The waiter is registered
 * before the task is published, so the job cannot end unheard. A failed
 * publish is only logged: the sweeper republishes the attempt.
 */
export async function dispatchAndWait(
  deps: { dispatcher: Dispatcher; signals: JobSignals; log: Logger },
  admitted: AdmittedJob,
  wait?: JobWait,
): Promise<JobSignal | null> {
  const waiter = wait ? deps.signals.watch(admitted.job.id) : null;
  try {
    await deps.dispatcher.publish(admitted.job, admitted.attempt).catch((err) => {
      deps.log.warn({ err, jobId: admitted.job.id }, 'publishing a task failed; the sweeper will retry');
    });
    return waiter && wait ? await waiter.wait(wait.timeoutMs, wait.accept) : null;
  } finally {
    waiter?.close();
  }
}

/** The ended job a signal carries (raised in this process), so the answer needs no second read. */
export function endedJob(signal: JobSignal | null): EndedJob | undefined {
  return signal?.kind === 'ended' && signal.record ? { record: signal.record, storedResult: signal.storedResult } : undefined;
}
