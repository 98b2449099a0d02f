import type { Redis } from 'ioredis';
import { ARTIFACT_TTL_SECONDS, artifactUrl, newArtifactName, type ArtifactExtension } from '../../common/artifacts.js';
import type { TrawlConfig } from '../../common/config.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import type { BrowserOptions } from '../../proto/gen/trawl/v1/work_pb.js';
import type { BrowserProfile } from './browser-profile.js';
import { createSharedBrowser } from './chromium.js';
import type { FetchOutcome } from './fetch-result.js';
import type { PageRequest } from './leased-fetch-work.js';
import { loadPage, type PageLoaderDeps } from './page-loader.js';
import { createWarmPages, WARM_PAGE_LIMITS } from './warm-pages.js';

/** A browser tier's page loading: one Chromium presenting a profile, launched on first use. */
export interface BrowserLoader {
  load(req: PageRequest, options: BrowserOptions | undefined): Promise<FetchOutcome>;
  /** Launches Chromium now (a broken install shows at once). */
  launch(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Chromium presenting `profile`, connecting only through the guarded SOCKS
 * proxy at `proxyUrl`, with screenshots and PDFs kept in Redis for 24 hours.
 * The browser tiers' processes and the crawl pool load pages through it.
 */
export function createBrowserLoader(opts: {
  config: TrawlConfig;
  redis: Redis;
  keys: RedisKeys;
  profile: BrowserProfile;
  proxyUrl: string;
  /** A tier's own step on each loaded page before it is read (the captcha tier's solving). */
  step?: Pick<PageLoaderDeps, 'beforeRead'> | undefined;
  /** Keeps tabs between an account's tasks on one origin (tier 3; PageLoaderDeps.warmPages). */
  warmPages?: boolean;
}): BrowserLoader {
  const { config, redis, keys, profile } = opts;
  const warmPages = opts.warmPages ? createWarmPages({ ...WARM_PAGE_LIMITS, maxIdle: config.tiers.browserConcurrency }) : undefined;
  const browser = createSharedBrowser({ executablePath: config.tiers.chromiumPath, proxyUrl: opts.proxyUrl, extraArgs: profile.launchArgs });
  const deps = {
    browser: browser.get,
    profile,
    guard: config.ssrf,
    maxBytes: config.worker.maxBytes,
    async saveArtifact(bytes: Buffer, extension: ArtifactExtension) {
      const name = newArtifactName(extension);
      await redis.set(keys.artifact(name), bytes, 'EX', ARTIFACT_TTL_SECONDS);
      return artifactUrl(config.publicBaseUrl, name);
    },
    ...(warmPages ? { warmPages } : {}),
    ...opts.step,
  };
  return {
    load: (req, options) => loadPage(deps, req, options),
    launch: () => browser.get(),
    async close() {
      await warmPages?.close();
      await browser.close();
    },
  };
}
