import { stealthProfile } from '../fetching/browser-profile.js';
import { runBrowserTier } from '../fetching/browser-tier-worker.js';

/**
 * Tier 3 (stealth): Chromium presenting a self-consistent desktop, without
 * the marks of automation. It keeps an account's tab on a site between
 * tasks, wiped of cookies and storage, as one person's browser would revisit
 * it (tier 4 starts a fresh context for every task).
 */
await runBrowserTier('fetch-t3', () => stealthProfile(), undefined, { warmPages: true });
