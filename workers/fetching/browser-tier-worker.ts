import type { BrowserProfile } from './browser-profile.js';
import { createBrowserLoader } from './browser-loader.js';
import { runFetchTier } from './fetch-tier-worker.js';
import { startGuardedSocksProxy } from './guarded-socks-proxy.js';
import type { PageLoaderDeps } from './page-loader.js';
import type { WorkerContext } from '../runtime/run-worker.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';

/**
 * The process of a browser tier (3, stealth, and 4): one Chromium per
 * process, a fresh context per task presenting the tier's profile (or, with
 * warmPages, a kept tab of the account on the page's origin), every
 * connection through the guarded SOCKS proxy, screenshots and PDFs kept in
 * Redis for 24 hours.
 */
export async function runBrowserTier(
  pool: string,
  profileFor: (configuredUserAgent: string) => BrowserProfile,
  /** The tier's own step on each loaded page (PageLoaderDeps.beforeRead). */
  stepFor?: (ctx: WorkerContext) => Pick<PageLoaderDeps, 'beforeRead'>,
  /** Tabs kept between an account's tasks on one origin (PageLoaderDeps.warmPages). */
  opts: { warmPages?: boolean } = {},
): Promise<void> {
  await runFetchTier(pool, { detectShells: false }, async (ctx) => {
    const { config, log, redis, keys } = ctx;
    const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
    const loader = createBrowserLoader({ config, redis, keys, profile: profileFor(config.worker.userAgent), proxyUrl: proxy.url, step: stepFor?.(ctx), warmPages: opts.warmPages === true });
    // Launched now, so a missing or broken Chromium shows at start rather than on the first task.
    await loader.launch().catch((err: unknown) => log.error({ err }, 'Chromium could not be launched'));
    return {
      fetch: (req, task) => loader.load(req, task.browser),
      concurrency: config.tiers.browserConcurrency,
      async close() {
        await loader.close();
        await proxy.close();
      },
    };
  });
}
