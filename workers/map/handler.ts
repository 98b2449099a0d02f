import { create, toBinary } from '@bufbuild/protobuf';
import { MAP_LIMITS } from '../../common/limits.js';
import { MapResultSchema, MapUrlMetadataSchema, MappedUrlSchema, RobotsTxtSummarySchema } from '../../proto/gen/trawl/v1/map_pb.js';
import { assertUrlAllowed, isUrlNotAllowedError, type GuardOptions } from '../../common/ssrf-guard.js';
import { AttemptFailure } from '../runtime/attempt-failure.js';
import type { AttemptWork } from '../runtime/attempt.js';
import { isErrorCode, TrawlError } from '../../common/errors.js';
import { discoverSite, type MapOutcome } from './discover.js';
import { createMapFetch, type MapFetchConfig } from './map-fetch.js';

export interface MapWorkDeps {
  fetch: MapFetchConfig;
  userAgent: string;
  /** The start URL is refused at once when the guard refuses it (a private address answers URL_NOT_ALLOWED, refunded). */
  guard: GuardOptions;
}

/** Time kept back from the attempt's deadline to store the result and report it before the caller stops waiting. */
const ANSWER_MARGIN_MS = 3_000;

/** What the pool found, as the job's stored result. */
export function mapResultBytes(outcome: MapOutcome): Uint8Array {
  return toBinary(
    MapResultSchema,
    create(MapResultSchema, {
      sitemapFound: outcome.sitemap_found,
      robotsTxt: create(RobotsTxtSummarySchema, {
        exists: outcome.robots_txt.exists,
        disallowedPaths: outcome.robots_txt.disallowed_paths,
        ...(outcome.robots_txt.crawl_delay === null ? {} : { crawlDelay: outcome.robots_txt.crawl_delay }),
        sitemaps: outcome.robots_txt.sitemaps,
      }),
      urls: outcome.urls.map((u) =>
        create(MappedUrlSchema, {
          url: u.url,
          depth: u.depth,
          source: u.source,
          ...(u.relevance_score === null ? {} : { relevanceScore: u.relevance_score }),
          ...(u.metadata
            ? {
                metadata: create(MapUrlMetadataSchema, {
                  ...(u.metadata.title === null ? {} : { title: u.metadata.title }),
                  ...(u.metadata.description === null ? {} : { description: u.metadata.description }),
                  ...(u.metadata.last_modified === null ? {} : { lastModified: u.metadata.last_modified }),
                }),
              }
            : {}),
        }),
      ),
    }),
  );
}

/** Maps a site: nothing to acquire; the discovery runs until it is done or the attempt's time is nearly up. */
export function createMapWork(deps: MapWorkDeps): AttemptWork<'map', null> {
  return {
    payload: 'map',
    processFailureCode: 'INTERNAL_ERROR',

    async acquire(task) {
      // Names are judged again by address when each fetch connects.
      try {
        assertUrlAllowed(new URL(task.request!.url), deps.guard);
      } catch (err) {
        if (isUrlNotAllowedError(err)) throw new AttemptFailure(err.code, err.message);
        throw new AttemptFailure('VALIDATION_ERROR', 'url must be an absolute http or https URL');
      }
      return { input: null, report: {} };
    },

    async process(task, _input, scope) {
      const req = task.request!;
      // A site that answered nothing at all (start page, robots.txt, sitemaps) fails the map, so it is refunded.
      let answered = false;
      let startFailure: { code: string; message: string } | undefined;
      const fetch = createMapFetch(deps.fetch, {
        answered: () => (answered = true),
        failed: (url, failure) => {
          if (url === req.url || startFailure === undefined) startFailure = failure;
        },
      });
      const outcome = await discoverSite(
        {
          url: req.url,
          maxPages: req.maxPages || MAP_LIMITS.maxPagesDefault,
          maxDepth: req.maxDepth,
          includePatterns: req.includePatterns,
          excludePatterns: req.excludePatterns,
          ...(req.search ? { search: req.search } : {}),
          sitemap: req.sitemap === 'skip' || req.sitemap === 'only' ? req.sitemap : 'include',
          ...(req.sitemapPath ? { sitemapPath: req.sitemapPath } : {}),
          includeMetadata: req.includeMetadata,
          includeSubdomains: req.includeSubdomains,
          respectRobots: req.respectRobots,
          userAgent: deps.userAgent,
        },
        fetch,
        { deadlineMs: scope.deadlineMs - ANSWER_MARGIN_MS, concurrency: MAP_LIMITS.concurrency, signal: scope.signal },
      );
      if (!answered && !scope.signal.aborted) {
        const code = startFailure && isErrorCode(startFailure.code) ? startFailure.code : 'TARGET_UNAVAILABLE';
        throw new TrawlError(code, `The site answered nothing: ${startFailure?.message ?? 'no fetch succeeded'}`, {
          fetch_error: startFailure?.code ?? null,
        });
      }
      return mapResultBytes(outcome);
    },
  };
}
