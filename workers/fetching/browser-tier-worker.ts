import type { BrowserProfile } from './browser-profile.js';
import { createBrowserLoader } from './browser-loader.js';
import { runFetchTier } from './fetch-tier-worker.js';
import { startGuardedSocksProxy } from './guarded-socks-proxy.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';

/**
 * The process of a browser tier (3, stealth, and 4): one Chromium per
 * process, a fresh context per task presenting the tier's profile, every
 * connection through the guarded SOCKS proxy, screenshots and PDFs kept in
 * Redis for 24 hours.
 */
export async function runBrowserTier(pool: string, profileFor: (configuredUserAgent: string) => BrowserProfile): Promise<void> {
  await runFetchTier(pool, { detectShells: false }, async ({ config, log, redis, keys }) => {
    const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
    const loader = createBrowserLoader({ config, redis, keys, profile: profileFor(config.worker.userAgent), proxyUrl: proxy.url });
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
