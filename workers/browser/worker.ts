import { plainProfile } from '../fetching/browser-profile.js';
import { runBrowserTier } from '../fetching/browser-tier-worker.js';

/** Tier 4: a plain Chromium with the configured user agent. */
await runBrowserTier('browser', plainProfile);
