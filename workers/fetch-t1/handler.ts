import { fromBinary, type JsonObject } from '@bufbuild/protobuf';
import type { Logger } from '../../common/logger.js';
import { ScrapeTaskSchema, type ScrapeTask } from '../../proto/gen/trawl/v1/work_pb.js';
import type { PipelineConfig } from '../pipeline/index.js';
import type { PipelinePool } from '../pipeline/pipeline-pool.js';
import { toStoredResult } from '../pipeline/stored-result.js';
import { pipelineFailure, type AttemptReporting } from '../runtime/attempt-reporting.js';
import type { DomainLease } from '../runtime/domain-lease.js';
import type { PoolHandler } from '../runtime/pool-runtime.js';
import { fetchPage, type FetchConfig } from './fetcher.js';

export interface FetchHandlerDeps {
  attempts: AttemptReporting;
  /** Where large request bodies wait (the task carries their key instead). */
  readInput(key: string): Promise<string | null>;
  lease: DomainLease;
  fetchConfig: FetchConfig;
  pipeline: PipelineConfig;
  /** Runs the pipeline off the event loop, within a time budget. */
  pipelinePool: PipelinePool;
  workerId: string;
  log: Logger;
}

export function createFetchHandler(deps: FetchHandlerDeps): PoolHandler<ScrapeTask> {
  const { attempts } = deps;
  return {
    decode: (data) => fromBinary(ScrapeTaskSchema, data),

    async handle(task, ctx) {
      // A redelivery of a task whose report already went out: nothing to do.
      if (await attempts.alreadyFinished(task)) return;
      await attempts.started(task, ctx);

      const started = Date.now();
      const remaining = Number(task.deadlineUnixMs) - started;
      if (remaining <= 0) return attempts.fail(task, ctx, 'TIMEOUT', 'The job reached its deadline before it could run');
      const timeoutMs = Math.min(task.timeoutMs, remaining);
      let body = task.body;
      if (task.inputKey && !body) {
        const parked = await deps.readInput(task.inputKey);
        if (parked === null) return attempts.fail(task, ctx, 'INTERNAL_ERROR', 'The request body is no longer available');
        body = parked;
      }

      let host: string;
      try {
        host = new URL(task.url).hostname;
      } catch {
        return attempts.fail(task, ctx, 'URL_NOT_ALLOWED', 'The URL cannot be parsed');
      }
      const lease = await deps.lease.acquireWithWait(host, `${deps.workerId}:${task.attemptId}`, { waitMs: timeoutMs });
      if (!lease) return attempts.fail(task, ctx, 'TIMEOUT', `Every concurrency slot for ${host} stayed busy until the timeout`);
      // A failed refresh (a Redis blip) only risks the slot expiring early; it must not take the worker down.
      const keepAlive = setInterval(() => void lease.refresh().catch(() => undefined), 5_000);
      let outcome;
      try {
        outcome = await fetchPage(
          { url: task.url, method: task.method, body, contentType: task.contentType, timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)) },
          deps.fetchConfig,
        );
      } finally {
        clearInterval(keepAlive);
        await lease.release().catch(() => undefined);
      }
      const fetchMs = BigInt(Date.now() - started);
      if (outcome.kind === 'failed') {
        return attempts.fail(task, ctx, outcome.code, outcome.message, {
          escalate: outcome.escalate,
          statusCode: outcome.statusCode ?? 0,
          finalUrl: outcome.finalUrl ?? '',
          bytes: BigInt(outcome.bytes ?? 0),
          fetchMs,
        });
      }

      const processStarted = Date.now();
      let result;
      try {
        const output = await deps.pipelinePool.run(
          {
            body: outcome.body,
            contentType: outcome.contentType,
            url: outcome.finalUrl,
            formats: task.formats,
            onlyMainContent: task.onlyMainContent,
            extractionSchema: task.extractionSchema as JsonObject | undefined,
            extractionProfile: task.extractionProfile,
            extractionPrompt: task.extractionPrompt,
            rag: { chunkSize: task.ragChunkSize, overlap: task.ragOverlap },
            endpoint: 'scrape',
          },
          deps.pipeline,
          { deadlineMs: Number(task.deadlineUnixMs) },
        );
        // Building the stored result is part of processing: a value it cannot hold fails the attempt, not the worker.
        result = toStoredResult(
          output,
          {
            url: task.url,
            finalUrl: outcome.finalUrl,
            statusCode: outcome.statusCode,
            headers: outcome.headers,
            responseTimeMs: outcome.timings.totalMs,
            sizeBytes: outcome.bytes,
            rawHtml: task.includeRawHtml ? outcome.body : undefined,
          },
          { contentAsFormats: false },
        );
      } catch (err) {
        deps.log.warn({ err, jobId: task.jobId }, 'content pipeline failed');
        const failure = pipelineFailure(err);
        return attempts.fail(task, ctx, failure.code, failure.message, { statusCode: outcome.statusCode, fetchMs });
      }
      await attempts.succeed(task, ctx, result, {
        statusCode: outcome.statusCode,
        finalUrl: outcome.finalUrl,
        bytes: BigInt(outcome.bytes),
        fetchMs,
        processMs: BigInt(Date.now() - processStarted),
      });
    },

    async exhausted(task, err, ctx) {
      await attempts.fail(task, ctx, 'INTERNAL_ERROR', `The worker could not complete the task: ${err instanceof Error ? err.message : String(err)}`);
    },
  };
}
