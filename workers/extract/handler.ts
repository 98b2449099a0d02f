import { fromBinary, type JsonObject } from '@bufbuild/protobuf';
import type { Redis } from 'ioredis';
import type { Logger } from '../../common/logger.js';
import { ScrapeTaskSchema, type ScrapeTask } from '../../proto/gen/trawl/v1/work_pb.js';
import type { PipelineConfig } from '../pipeline/index.js';
import type { PipelinePool } from '../pipeline/pipeline-pool.js';
import { toStoredResult } from '../pipeline/stored-result.js';
import { pipelineFailure, type AttemptReporting } from '../runtime/attempt-reporting.js';
import type { PoolHandler } from '../runtime/pool-runtime.js';

export interface ExtractHandlerDeps {
  attempts: AttemptReporting;
  redis: Redis;
  pipeline: PipelineConfig;
  /** Runs the pipeline off the event loop, within a time budget. */
  pipelinePool: PipelinePool;
  log: Logger;
}

/** Runs the content pipeline on caller-supplied content; source_url is context only and never fetched. */
export function createExtractHandler(deps: ExtractHandlerDeps): PoolHandler<ScrapeTask> {
  const { attempts } = deps;
  return {
    decode: (data) => fromBinary(ScrapeTaskSchema, data),

    async handle(task, ctx) {
      if (await attempts.alreadyFinished(task)) return;
      await attempts.started(task, ctx);
      if (Number(task.deadlineUnixMs) <= Date.now()) return attempts.fail(task, ctx, 'TIMEOUT', 'The extraction reached its deadline before it could run');
      const content = await deps.redis.get(task.inputKey);
      if (content === null) return attempts.fail(task, ctx, 'INTERNAL_ERROR', 'The supplied content is no longer available');

      const started = Date.now();
      let result;
      try {
        const output = await deps.pipelinePool.run(
          {
            body: content,
            contentType: task.inputContentType || 'html',
            url: task.url,
            formats: task.formats,
            onlyMainContent: true,
            extractionSchema: task.extractionSchema as JsonObject | undefined,
            extractionProfile: task.extractionProfile,
            extractionPrompt: task.extractionPrompt,
            evidence: task.evidence,
            rag: { chunkSize: task.ragChunkSize, overlap: task.ragOverlap },
            endpoint: 'extract',
            jsonIsFiltered: true,
          },
          deps.pipeline,
          { deadlineMs: Number(task.deadlineUnixMs) },
        );
        // A value the stored result cannot hold fails the attempt, not the worker.
        result = toStoredResult(
          output,
          { url: task.url, finalUrl: task.url, statusCode: 0, headers: {}, responseTimeMs: Date.now() - started, sizeBytes: Buffer.byteLength(content) },
          { contentAsFormats: true },
        );
      } catch (err) {
        deps.log.warn({ err, jobId: task.jobId }, 'extraction failed');
        const failure = pipelineFailure(err);
        return attempts.fail(task, ctx, failure.code, failure.message, { processMs: BigInt(Date.now() - started) });
      }
      await attempts.succeed(task, ctx, result, { processMs: BigInt(Date.now() - started), bytes: BigInt(Buffer.byteLength(content)) });
    },

    async exhausted(task, err, ctx) {
      await attempts.fail(task, ctx, 'INTERNAL_ERROR', `The worker could not complete the task: ${err instanceof Error ? err.message : String(err)}`);
    },
  };
}
