import { randomUUID } from 'node:crypto';
import { create, fromBinary, type JsonObject } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { TrawlError, isErrorCode } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { ExtractResponseSchema, ExtractService } from '../../proto/gen/trawl/v1/extract_pb.js';
import { ScrapeResultSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { Authenticator } from '../accounts/authenticator.js';
import { withTransaction } from '../billing/ledger.js';
import { EXTRACT_LARGE_PRICE, EXTRACT_LARGE_THRESHOLD_CHARS, EXTRACT_PRICE } from '../billing/prices.js';
import { EXTRACT_TIMEOUT_MS, extractRequestToJson, publishAttempt } from '../scheduler/dispatcher.js';
import { failJob, lockJob } from '../scheduler/job-settlement.js';
import { announceJobSignal, watchJob } from '../scheduler/job-waiters.js';
import { admitJob } from '../scrape/admission.js';
import { authenticateCall } from '../scrape/scrape-service.js';
import { validateExtractionSchema } from '../../common/extraction-schema.js';

export const MAX_EXTRACT_CONTENT_BYTES = 5 * 1024 * 1024;
/** Extract is priced as a tier 3.5 scrape (SPEC 2.1); it runs on the extract pool. */
const EXTRACT_TIER = '3.5';
const EXTRACT_POOL = 'extract';

export interface ExtractServiceDeps {
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  js: JetStreamClient;
  names: NatsNames;
  authenticator: Authenticator;
  llmConfigured: boolean;
  log: Logger;
}

export function extractPrice(chars: number): number {
  return chars > EXTRACT_LARGE_THRESHOLD_CHARS ? EXTRACT_LARGE_PRICE : EXTRACT_PRICE;
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
      const auth = await authenticateCall(deps.authenticator, ctx);
      if (req.content.trim() === '') throw new TrawlError('CONTENT_BLANK', 'content must not be blank');
      if (req.extractionSchema !== undefined) validateExtractionSchema(req.extractionSchema);
      const bytes = Buffer.byteLength(req.content, 'utf8');
      if (bytes > MAX_EXTRACT_CONTENT_BYTES) {
        throw new TrawlError('CONTENT_OVER_LIMIT', 'content is over the 5 MB limit', { size_bytes: bytes, limit_bytes: MAX_EXTRACT_CONTENT_BYTES });
      }
      if (req.extractionPrompt && !deps.llmConfigured) {
        throw new TrawlError('SERVICE_UNAVAILABLE', 'LLM extraction is not configured on this service');
      }
      const chars = [...req.content].length;
      const price = extractPrice(chars);
      const jobId = randomUUID();
      const inputKey = `${deps.names.workStream}:extract-input:${jobId}`;
      const waitMs = Math.min(req.waitMs || EXTRACT_TIMEOUT_MS, EXTRACT_TIMEOUT_MS);
      await deps.redis.set(inputKey, req.content, 'EX', 3600);

      let admitted;
      try {
        admitted = await admitJob(
          deps.pool,
          auth,
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
            deadline: new Date(Date.now() + waitMs),
            inputKey,
            estimatedTier: EXTRACT_TIER,
          },
          req.requestId,
        );
      } catch (err) {
        await deps.redis.del(inputKey);
        throw err;
      }

      const waiter = watchJob(deps.nc, deps.names, jobId);
      try {
        await publishAttempt(deps, admitted.job, admitted.attempt).catch((err) =>
          deps.log.warn({ err, jobId }, 'publishing an extract task failed; the sweeper will retry'),
        );
        await waiter.wait(waitMs, (s) => s.kind === 'ended');
      } finally {
        waiter.close();
      }

      const timedOut = await withTransaction(deps.pool, async (client) => {
        const job = await lockJob(client, jobId);
        if (!job || (job.status !== 'pending' && job.status !== 'running')) return false;
        await failJob(client, job, { code: 'TIMEOUT', message: 'The extraction did not finish in time' });
        return true;
      });
      if (timedOut) announceJobSignal(deps.nc, deps.names, jobId, { kind: 'ended' });
      await deps.redis.del(inputKey);

      const row = await deps.pool.query<{
        status: string; charged_microcents: string; result_key: string | null;
        error_code: string | null; error_message: string | null; error_details: JsonObject | null;
      }>('SELECT status, charged_microcents, result_key, error_code, error_message, error_details FROM jobs WHERE id = $1', [jobId]);
      const job = row.rows[0]!;
      if (job.status !== 'succeeded') {
        const code = job.error_code && isErrorCode(job.error_code) ? job.error_code : 'EXTRACTION_FAILED';
        throw new TrawlError(code, job.error_message ?? 'The extraction failed', { ...(job.error_details ?? {}), extract_id: jobId, refunded: true });
      }
      const stored = job.result_key ? await deps.redis.getBuffer(job.result_key) : null;
      if (!stored) throw new TrawlError('INTERNAL_ERROR', 'The extraction result is missing');
      const result = fromBinary(ScrapeResultSchema, stored);
      const balance = await deps.pool.query<{ balance_microcents: string }>('SELECT balance_microcents FROM accounts WHERE id = $1', [auth.accountId]);
      return create(ExtractResponseSchema, {
        extractId: jobId,
        formats: result.content,
        creditsUsed: BigInt(job.charged_microcents),
        modelUsed: result.modelUsed,
        extractionMethod: result.extractionMethod,
        contentSizeChars: BigInt(chars),
        filteredContent: result.filteredContent,
        evidence: result.evidence,
        balanceMicrocents: BigInt(balance.rows[0]?.balance_microcents ?? 0),
      });
    },
  };
}
