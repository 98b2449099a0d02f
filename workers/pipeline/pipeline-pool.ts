import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { TrawlError, isErrorCode } from '../../common/errors.js';
import type { PipelineConfig, PipelineInput, PipelineOutput } from './index.js';
import type { ThreadResult } from './pipeline-thread.js';

export interface PipelinePoolOptions {
  /** Threads converting pages at once; the CPU count by default. */
  threads?: number;
  /** Longest a single document may take to process before its thread is stopped. */
  budgetMs: number;
  /** Heap one thread may use before it is ended. */
  maxHeapMb?: number;
}

export interface PipelinePool {
  /** Runs the pipeline off the event loop; `deadlineMs` (epoch ms) shortens the budget when it comes first. */
  run(input: PipelineInput, config: PipelineConfig, opts?: { deadlineMs?: number }): Promise<PipelineOutput>;
  close(): Promise<void>;
}

/**
 * The content pipeline on worker threads. Conversion is synchronous and
 * CPU-bound; on the event loop a long document would stop the task
 * heartbeats (JetStream would redeliver every task in flight) and the
 * reports. Each document gets a time budget; a thread that runs past it is
 * terminated (piscina aborts by ending the thread) and the attempt fails with
 * EXTRACTION_FAILED, refunded, instead of holding a worker.
 */
export function createPipelinePool(options: PipelinePoolOptions): PipelinePool {
  const threads = Math.max(1, options.threads ?? availableParallelism());
  const pool = new Piscina({
    filename: new URL('./pipeline-thread.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: threads,
    // Threads inherit the process's flags (--import tsx loads the TypeScript sources).
    execArgv: process.execArgv,
    idleTimeout: 60_000,
    // A document that blows up in memory ends its thread (ERR_WORKER_OUT_OF_MEMORY), not the worker process.
    resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 2_048 },
  });

  return {
    async run(input, config, opts = {}) {
      const budget = Math.max(1, Math.min(options.budgetMs, (opts.deadlineMs ?? Infinity) - Date.now()));
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), budget);
      let result: ThreadResult;
      try {
        result = (await pool.run({ input, config }, { signal: abort.signal })) as ThreadResult;
      } catch (err) {
        if (abort.signal.aborted) {
          throw new TrawlError('EXTRACTION_FAILED', `Processing the document took longer than ${Math.round(budget / 1000)} s and was stopped`, {
            budget_ms: budget,
          });
        }
        // The thread died (out of memory, for one): the document cannot be processed here.
        throw new TrawlError('EXTRACTION_FAILED', `Processing the document failed: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        clearTimeout(timer);
      }
      if (result.ok) return result.output;
      throw new TrawlError(isErrorCode(result.code) ? result.code : 'EXTRACTION_FAILED', result.message, result.details);
    },
    close: () => pool.destroy(),
  };
}
