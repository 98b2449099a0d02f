import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { TrawlError, isErrorCode } from '../../common/errors.js';
import type { ThreadResult, ThreadTask } from './pipeline-thread.js';
import { StartCells, startedAt } from './start-cells.js';

export interface PipelinePoolOptions {
  /** Threads converting pages at once; the CPU count by default. */
  threads?: number;
  /** Longest a single document may take to process before its thread is stopped. */
  budgetMs: number;
  /** Heap one thread may use before it is ended. */
  maxHeapMb?: number;
}

export interface PipelinePool {
  /**
   * Runs the CPU part of the pipeline off the event loop; `deadlineMs` (epoch
   * ms) shortens the budget when it comes first. The task's bytes are moved
   * to the thread: the caller must not use them afterwards.
   */
  run(task: ThreadTask, opts?: { deadlineMs?: number }): Promise<Exclude<ThreadResult, { kind: 'failed' }>>;
  close(): Promise<void>;
}

/** How long a document may wait for a thread to load the pipeline and begin on it, beyond its budget. */
const THREAD_START_LIMIT_MS = 30_000;

/** The thread module beside this one, as TypeScript from the sources or as JavaScript from the compiled tree. */
const THREAD_FILE = new URL(import.meta.url.endsWith('.ts') ? './pipeline-thread.ts' : './pipeline-thread.js', import.meta.url).href;

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
    filename: THREAD_FILE,
    // Every thread is started and kept: one started on demand would spend its first document's budget loading code.
    minThreads: threads,
    maxThreads: threads,
    // Threads inherit the process's flags (--import tsx loads the TypeScript sources).
    execArgv: process.execArgv,
    idleTimeout: 60_000,
    // A document that blows up in memory ends its thread (ERR_WORKER_OUT_OF_MEMORY), not the worker process.
    resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 2_048 },
  });
  const startCells = new StartCells();
  // Each thread loads the pipeline now rather than on its first document.
  for (let i = 0; i < threads; i++) pool.run(null, { name: 'warmUp' }).catch(() => undefined);

  return {
    async run(task, opts = {}) {
      const abort = new AbortController();
      const queuedAt = Date.now();
      const deadline = opts.deadlineMs ?? Infinity;
      const cell = startCells.take();
      // Until a thread begins on the document (one may still be loading the pipeline, or replacing a thread that
      // was stopped) only the deadline and a generous start limit apply; the budget is the document's own time.
      // The timer looks at the document's start cell when it fires, and waits on while there is time left.
      let budget = options.budgetMs;
      let timer: NodeJS.Timeout;
      const check = () => {
        const began = startedAt(cell);
        const from = began > 0 ? began : queuedAt;
        const end = Math.min(deadline, from + options.budgetMs + (began > 0 ? 0 : THREAD_START_LIMIT_MS));
        const now = Date.now();
        if (now >= end) {
          budget = Math.max(1, Math.round(end - from));
          abort.abort();
          return;
        }
        // A waiting document is looked at again within a budget, so one that begins meanwhile is still stopped on time.
        timer = setTimeout(check, began > 0 ? end - now : Math.min(end - now, options.budgetMs));
      };
      timer = setTimeout(check, Math.max(1, Math.min(options.budgetMs, deadline - queuedAt)));
      let result: ThreadResult;
      try {
        result = (await pool.run({ ...task, started: cell }, { signal: abort.signal, transferList: [task.bytes.buffer as ArrayBuffer] })) as ThreadResult;
      } catch (err) {
        if (abort.signal.aborted) {
          throw new TrawlError('EXTRACTION_FAILED', `Processing the document took longer than ${Math.round(budget / 1000)} s and was stopped`, {
            budget_ms: budget,
          });
        }
        // The thread died (out of memory, for one): the document cannot be processed here.
        throw new TrawlError('EXTRACTION_FAILED', `Processing the document failed: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        clearTimeout(timer!);
        startCells.release(cell);
      }
      if (result.kind !== 'failed') return result;
      throw new TrawlError(isErrorCode(result.code) ? result.code : 'EXTRACTION_FAILED', result.message, result.details);
    },
    close: () => pool.destroy(),
  };
}
