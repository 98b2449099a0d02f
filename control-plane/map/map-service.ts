import { randomUUID } from 'node:crypto';
import { create, fromBinary, fromJson, toJson, type JsonObject } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import { TrawlError, isErrorCode } from '../../common/errors.js';
import { isUuid } from '../../common/ids.js';
import { MAP_LIMITS } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import { MAP_PRICE, toCredits } from '../../common/pricing.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { MAP_POOL, MAP_TIER } from '../../common/tiers.js';
import {
  CompareMapsResponseSchema,
  CompareSummarySchema,
  ComparedUrlSchema,
  ListMapsResponseSchema,
  MapRecordSchema,
  MapRequestSchema,
  MapResultSchema,
  MapService,
  MapSummarySchema,
  type MapRecord,
} from '../../proto/gen/trawl/v1/map_pb.js';
import { callerOf } from '../accounts/caller.js';
import { admitJob } from '../jobs/admission.js';
import type { JobSignals } from '../jobs/job-signals.js';
import type { Db } from '../jobs/job-store.js';
import type { JobLoader } from '../jobs/job-view.js';
import { failOpenJob } from '../jobs/lifecycle.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import { dispatchAndWait, endedJob } from '../scheduler/job-run.js';
import { compareMaps, type ComparedUrl } from './map-compare.js';
import { findMap, insertMap, listMaps, type MapRow } from './map-store.js';

export interface MapServiceDeps {
  pool: Db;
  redis: Redis;
  keys: RedisKeys;
  dispatcher: Dispatcher;
  signals: JobSignals;
  jobs: JobLoader;
  log: Logger;
}

/** The domain a map is filed under in the history, and asked for in it: a host, lower-case, without a leading `www.`. */
function mapDomain(host: string): string {
  return host.trim().toLowerCase().replace(/^www\./, '');
}

function recordOf(row: MapRow, balanceMicrocents?: bigint): MapRecord {
  return create(MapRecordSchema, {
    mapId: row.id,
    url: row.url,
    domain: row.domain,
    result: fromJson(MapResultSchema, row.result, { ignoreUnknownFields: true }),
    creditsUsed: BigInt(toCredits(row.credits_used)),
    config: row.config,
    createdAt: row.created_at.toISOString(),
    ...(balanceMicrocents === undefined ? {} : { balanceMicrocents }),
  });
}

/** A map of the account; another account's map answers NOT_FOUND like a missing one. */
async function ownMap(db: Db, accountId: string, mapId: string): Promise<MapRow> {
  const row = isUuid(mapId) ? await findMap(db, accountId, mapId) : undefined;
  if (!row) throw new TrawlError('NOT_FOUND', `No map ${mapId}`);
  return row;
}

/**
 * Maps a site in the map pool for one credit: the call holds until the job
 * ends (a map still running near the sync deadline answers what it found by
 * then), and a map that succeeds is kept in the account's history. A map
 * that fails is refunded, as any job is.
 */
export function createMapService(deps: MapServiceDeps): ServiceImpl<typeof MapService> {
  return {
    async createMap(req, ctx) {
      const caller = callerOf(ctx);
      const url = URL.canParse(req.url) ? new URL(req.url) : null;
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new TrawlError('VALIDATION_ERROR', 'url must be an absolute http or https URL');
      const jobId = randomUUID();
      // The request as run, with SPEC field names: the history's `config`, and the job's request (the dispatcher reads either naming).
      const config = toJson(MapRequestSchema, req, { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject;
      delete config['request_id'];
      const deadline = new Date(Date.now() + MAP_LIMITS.timeoutMs);
      const admitted = await admitJob(
        deps.pool,
        caller,
        {
          id: jobId,
          kind: 'map',
          url: url.href,
          mode: 'map',
          formats: [],
          sync: true,
          request: config,
          tierPlan: [MAP_TIER],
          pool: MAP_POOL,
          reserveMicrocents: MAP_PRICE,
          attemptPriceMicrocents: MAP_PRICE,
          deadline,
          estimatedTier: MAP_TIER,
        },
        req.requestId,
      );
      const signal = await dispatchAndWait(deps, admitted, { timeoutMs: MAP_LIMITS.timeoutMs, accept: (s) => s.kind === 'ended' });
      // Still running at the deadline: failed and refunded here, so a late report cannot charge it.
      if (!signal) await failOpenJob(deps, jobId, { code: 'TIMEOUT', message: 'The map did not finish in time' });
      const loaded = await deps.jobs.load(jobId, caller.accountId, endedJob(signal));
      if (!loaded) throw new TrawlError('INTERNAL_ERROR', 'The job record vanished');
      const { record: job } = loaded;
      if (job.status !== 'succeeded' || !loaded.storedResult) {
        const code = job.error_code && isErrorCode(job.error_code) ? job.error_code : 'INTERNAL_ERROR';
        throw new TrawlError(code, job.error_message ?? 'The map failed', { ...(job.error_details ?? {}), map_id: jobId, refunded: true });
      }
      const result = fromBinary(MapResultSchema, loaded.storedResult);
      const row = await insertMap(deps.pool, {
        id: jobId,
        account_id: caller.accountId,
        url: url.href,
        domain: mapDomain(url.hostname),
        config,
        result: toJson(MapResultSchema, result) as JsonObject,
        total_urls: result.urls.length,
        sitemap_found: result.sitemapFound,
        credits_used: String(job.charged_microcents),
      });
      return recordOf(row, loaded.balanceMicrocents);
    },

    async listMaps(req, ctx) {
      const caller = callerOf(ctx);
      const limit = req.limit || MAP_LIMITS.listLimitDefault;
      if (limit < 1 || limit > MAP_LIMITS.listLimitMax) throw new TrawlError('VALIDATION_ERROR', `limit must be 1 to ${MAP_LIMITS.listLimitMax}`);
      if (req.offset < 0) throw new TrawlError('VALIDATION_ERROR', 'offset must be 0 or more');
      const domain = req.domain ? mapDomain(req.domain) || undefined : undefined;
      const { rows, total } = await listMaps(deps.pool, caller.accountId, { limit, offset: req.offset, ...(domain ? { domain } : {}) });
      return create(ListMapsResponseSchema, {
        total,
        maps: rows.map((r) =>
          create(MapSummarySchema, {
            mapId: r.id,
            url: r.url,
            domain: r.domain,
            totalUrls: r.total_urls,
            creditsUsed: BigInt(toCredits(r.credits_used)),
            sitemapFound: r.sitemap_found,
            createdAt: r.created_at.toISOString(),
          }),
        ),
      });
    },

    async getMap(req, ctx) {
      return recordOf(await ownMap(deps.pool, callerOf(ctx).accountId, req.mapId));
    },

    async compareMaps(req, ctx) {
      const caller = callerOf(ctx);
      const limit = req.limit || MAP_LIMITS.compareLimitDefault;
      if (limit < 1 || limit > MAP_LIMITS.compareLimitMax) throw new TrawlError('VALIDATION_ERROR', `limit must be 1 to ${MAP_LIMITS.compareLimitMax}`);
      if (req.offset < 0) throw new TrawlError('VALIDATION_ERROR', 'offset must be 0 or more');
      const [a, b] = [await ownMap(deps.pool, caller.accountId, req.mapIdA), await ownMap(deps.pool, caller.accountId, req.mapIdB)];
      if (a.domain !== b.domain) {
        throw new TrawlError('VALIDATION_ERROR', `Both maps must be of the same domain; map_id_a is of ${a.domain}, map_id_b of ${b.domain}`, {
          domain_a: a.domain,
          domain_b: b.domain,
        });
      }
      const [resultA, resultB] = [recordOf(a).result!, recordOf(b).result!];
      const diff = compareMaps(resultA, resultB);
      const page = (urls: ComparedUrl[]) => urls.slice(req.offset, req.offset + limit).map((u) => create(ComparedUrlSchema, u));
      return create(CompareMapsResponseSchema, {
        mapIdA: a.id,
        mapIdB: b.id,
        domain: a.domain,
        createdAtA: a.created_at.toISOString(),
        createdAtB: b.created_at.toISOString(),
        summary: create(CompareSummarySchema, {
          added: diff.added.length,
          removed: diff.removed.length,
          changed: diff.changed.length,
          unchanged: diff.unchanged.length,
          totalA: resultA.urls.length,
          totalB: resultB.urls.length,
          sitemapChanged: diff.sitemapChanged,
          urlDelta: resultB.urls.length - resultA.urls.length,
        }),
        addedUrls: page(diff.added),
        removedUrls: page(diff.removed),
        changedUrls: page(diff.changed),
        unchangedUrls: page(diff.unchanged),
        limit,
        offset: req.offset,
      });
    },
  };
}
