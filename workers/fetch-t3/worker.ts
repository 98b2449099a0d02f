import { stealthProfile } from '../fetching/browser-profile.js';
import { runBrowserTier } from '../fetching/browser-tier-worker.js';

/** Tier 3 (stealth): Chromium presenting a self-consistent desktop, without the marks of automation. */
await runBrowserTier('fetch-t3', () => stealthProfile());
