import { runPipeline, type PipelineConfig, type PipelineInput, type PipelineOutput } from './index.js';
import { TrawlError } from '../../common/errors.js';

/** What crosses back from a pipeline thread: the output, or a failure with its public code. */
export type ThreadResult = { ok: true; output: PipelineOutput } | { ok: false; code: string; message: string; details?: Record<string, unknown> };

/** Runs in a worker thread (see pipeline-pool.ts); errors come back as data so their codes survive the thread boundary. */
export default async function runInThread(task: { input: PipelineInput; config: PipelineConfig }): Promise<ThreadResult> {
  try {
    return { ok: true, output: await runPipeline(task.input, task.config) };
  } catch (err) {
    if (err instanceof TrawlError) return { ok: false, code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
    return { ok: false, code: 'EXTRACTION_FAILED', message: err instanceof Error ? err.message : 'The content could not be processed' };
  }
}
