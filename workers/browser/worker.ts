import { ARTIFACT_TTL_SECONDS, artifactUrl, newArtifactName, type ArtifactExtension } from '../../common/artifacts.js';
import { runFetchTier } from '../fetching/fetch-tier-worker.js';
import { startGuardedSocksProxy } from '../fetching/guarded-socks-proxy.js';
import { createGuardedConnect } from '../fetching/ssrf-guard.js';
import { createSharedBrowser } from './chromium.js';
import { loadPage } from './page-loader.js';

/** Tier 4: one Chromium per process, a fresh context per task, every connection through the guarded SOCKS proxy. */
await runFetchTier('browser', { detectShells: false }, async ({ config, log, redis, keys }) => {
  const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
  const browser = createSharedBrowser({ executablePath: config.tiers.chromiumPath, proxyUrl: proxy.url });
  // Launched now, so a missing or broken Chromium shows at start rather than on the first task.
  await browser.get().catch((err: unknown) => log.error({ err }, 'Chromium could not be launched'));
  const deps = {
    browser: browser.get,
    guard: config.ssrf,
    maxBytes: config.worker.maxBytes,
    userAgent: config.worker.userAgent,
    async saveArtifact(bytes: Buffer, extension: ArtifactExtension) {
      const name = newArtifactName(extension);
      await redis.set(keys.artifact(name), bytes, 'EX', ARTIFACT_TTL_SECONDS);
      return artifactUrl(config.publicBaseUrl, name);
    },
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
