import { ARTIFACT_TTL_SECONDS, artifactUrl, newArtifactName, type ArtifactExtension } from '../../common/artifacts.js';
import type { BrowserProfile } from './browser-profile.js';
import { createSharedBrowser } from './chromium.js';
import { runFetchTier } from './fetch-tier-worker.js';
import { startGuardedSocksProxy } from './guarded-socks-proxy.js';
import { loadPage, type PageLoaderDeps } from './page-loader.js';
import type { WorkerContext } from '../runtime/run-worker.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';

/**
 * The process of a browser tier (3, stealth, and 4): one Chromium per
 * process, a fresh context per task presenting the tier's profile, every
 * connection through the guarded SOCKS proxy, screenshots and PDFs kept in
 * Redis for 24 hours.
 */
export async function runBrowserTier(
  pool: string,
  profileFor: (configuredUserAgent: string) => BrowserProfile,
  /** The tier's own step on each loaded page (PageLoaderDeps.beforeRead). */
  stepFor?: (ctx: WorkerContext) => Pick<PageLoaderDeps, 'beforeRead'>,
): Promise<void> {
  await runFetchTier(pool, { detectShells: false }, async (ctx) => {
    const { config, log, redis, keys } = ctx;
    const profile = profileFor(config.worker.userAgent);
    const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
    const browser = createSharedBrowser({ executablePath: config.tiers.chromiumPath, proxyUrl: proxy.url, extraArgs: profile.launchArgs });
    // Launched now, so a missing or broken Chromium shows at start rather than on the first task.
    await browser.get().catch((err: unknown) => log.error({ err }, 'Chromium could not be launched'));
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
      ...stepFor?.(ctx),
    };
    return {
      fetch: (req, task) => loadPage(deps, req, task.browser),
      concurrency: config.tiers.browserConcurrency,
      async close() {
        await browser.close();
        await proxy.close();
      },
    };
  });
}
