import { stealthProfile } from '../fetching/browser-profile.js';
import { runBrowserTier } from '../fetching/browser-tier-worker.js';
import { createCaptchaStep } from './captcha-step.js';

/**
 * Tier 5: the stealth browser of tier 3 that solves the page's captcha
 * through the configured solving service and reads the page behind it. The
 * control plane sends work here only after an attempt met a captcha.
 */
await runBrowserTier('captcha', () => stealthProfile(), ({ config, log }) => {
  const { solverUrl, solverKey, solveTimeoutMs, pollIntervalMs } = config.captcha;
  if (!solverUrl) log.warn('TRAWL_CAPTCHA_SOLVER_URL is not set: tier 5 is not planned, and this pool solves nothing');
  return { beforeRead: createCaptchaStep({ baseUrl: solverUrl, apiKey: solverKey, timeoutMs: solveTimeoutMs, pollIntervalMs }) };
});
