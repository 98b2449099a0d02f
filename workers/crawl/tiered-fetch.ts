import { JS_SHELL, nextTier } from '../../common/tier-escalation.js';
import { CRAWL_TIER } from '../../common/tiers.js';
import type { FetchOutcome } from '../fetching/fetch-result.js';
import { classifyPage } from '../fetching/leased-fetch-work.js';
import { isBrowserTier } from './tier-fetchers.js';

/** A page's answer and the tier that gave it. */
export interface TieredOutcome {
  outcome: FetchOutcome;
  tier: string;
}

/**
 * A crawl page fetched through its crawl's tier plan, by the scrape's
 * escalation policy (nextTier): it starts at the plan's first tier; a
 * failure a stronger tier might get past (blocked, challenged, rate limited)
 * moves to the next planned tier, and a JavaScript shell fetched over HTTP to
 * the first planned browser tier, unless render_js is false. The last answer
 * is the page's, with its tier. `fetchAt` answers null when the page could
 * not start at a tier before the batch ran out of time; so does this.
 */
export async function fetchThroughTiers(
  plan: readonly string[],
  renderJs: boolean | undefined,
  fetchAt: (tier: string) => Promise<FetchOutcome | null>,
): Promise<TieredOutcome | null> {
  let tier = plan[0] ?? CRAWL_TIER;
  for (;;) {
    const outcome = await fetchAt(tier);
    if (!outcome) return null;
    let next: string | undefined;
    if (outcome.kind === 'failed') {
      next = outcome.escalate ? nextTier(plan, tier) : undefined;
    } else {
      // The shell check only runs when a browser tier is left to escalate to.
      const browser = nextTier(plan, tier, { classification: JS_SHELL, renderJs });
      next = browser && classifyPage(outcome, !isBrowserTier(tier)) === JS_SHELL ? browser : undefined;
    }
    if (!next) return { outcome, tier };
    tier = next;
  }
}
