import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import { TrawlError, isErrorCode } from '../../common/errors.js';
import { validateExtractionSchema } from '../../common/extraction-schema.js';
import { refuseUnusableContent } from '../../common/extract-content.js';
import { EXTRACT_TIMEOUT_MS } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import { extractPrice } from '../../common/pricing.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { EXTRACT_POOL, EXTRACT_TIER } from '../../common/tiers.js';
import { ExtractResponseSchema, ExtractService } from '../../proto/gen/trawl/v1/extract_pb.js';
import { callerOf } from '../accounts/caller.js';
import { admitJob, refuseUnconfiguredPrompt } from '../jobs/admission.js';
import type { JobSignals } from '../jobs/job-signals.js';
import type { Db } from '../jobs/job-store.js';
import { resultOf, type JobLoader } from '../jobs/job-view.js';
import { failOpenJob } from '../jobs/lifecycle.js';
import { extractRequestToJson, type Dispatcher } from '../scheduler/dispatcher.js';
import { admitWithInput, dispatchAndWait, endedJob } from '../scheduler/job-run.js';

export interface ExtractServiceDeps {
  pool: Db;
  redis: Redis;
  keys: RedisKeys;
  dispatcher: Dispatcher;
  signals: JobSignals;
  llmConfigured: boolean;
  jobs: JobLoader;
  log: Logger;
}

/**
 * Runs caller-supplied content through the extract pool. The content waits in
 * Redis for the worker (never in NATS or Postgres); the call holds until the
 * job ends. A job still running at the deadline is failed and refunded here,
 * so a late worker report cannot charge it.
 */
export function createExtractService(deps: ExtractServiceDeps): ServiceImpl<typeof ExtractService> {
  return {
    async extract(req, ctx) {
      const caller = callerOf(ctx);
      refuseUnusableContent(req.content);
      if (req.extractionSchema !== undefined) validateExtractionSchema(req.extractionSchema);
      refuseUnconfiguredPrompt(req.extractionPrompt, deps.llmConfigured);
      const chars = [...req.content].length;
      const price = extractPrice(chars);
      const jobId = randomUUID();
      const inputKey = deps.keys.extractInput(jobId);
      const waitMs = Math.min(req.waitMs || EXTRACT_TIMEOUT_MS, EXTRACT_TIMEOUT_MS);
      const deadline = new Date(Date.now() + waitMs);
      const admitted = await admitWithInput(deps.redis, [{ key: inputKey, value: req.content }], deadline, () =>
        admitJob(
          deps.pool,
          caller,
          {
            id: jobId,
            kind: 'extract',
            url: req.sourceUrl ?? '',
            mode: 'extract',
            formats: req.formats,
            sync: true,
            request: extractRequestToJson(req),
            tierPlan: [EXTRACT_TIER],
            pool: EXTRACT_POOL,
            reserveMicrocents: price,
            attemptPriceMicrocents: price,
            deadline,
            inputKey,
            estimatedTier: EXTRACT_TIER,
          },
          req.requestId,
        ),
      );

      const signal = await dispatchAndWait(deps, admitted, { timeoutMs: waitMs, accept: (s) => s.kind === 'ended' });
      // Still running at the deadline: failed and refunded here, so a late report cannot charge it.
      if (!signal) await failOpenJob(deps, jobId, { code: 'TIMEOUT', message: 'The extraction did not finish in time' });
      await deps.redis.del(inputKey);

      const loaded = await deps.jobs.load(jobId, caller.accountId, endedJob(signal));
      if (!loaded) throw new TrawlError('INTERNAL_ERROR', 'The job record vanished');
      const { record: job } = loaded;
      const result = resultOf(loaded);
      if (job.status !== 'succeeded' || !result) {
        const code = job.error_code && isErrorCode(job.error_code) ? job.error_code : 'EXTRACTION_FAILED';
        throw new TrawlError(code, job.error_message ?? 'The extraction failed', { ...(job.error_details ?? {}), extract_id: jobId, refunded: true });
      }
      return create(ExtractResponseSchema, {
        extractId: jobId,
        formats: result.content,
        creditsUsed: BigInt(job.charged_microcents),
        modelUsed: result.modelUsed,
        extractionMethod: result.extractionMethod,
        contentSizeChars: BigInt(chars),
        filteredContent: result.filteredContent,
        evidence: result.evidence,
        balanceMicrocents: loaded.balanceMicrocents,
      });
    },
  };
}
