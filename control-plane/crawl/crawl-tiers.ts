import type { CrawlConfig } from '../../common/crawl-config.js';
import { addOnsOf, addOnsPrice, tierPrice, type AddOn } from '../../common/pricing.js';
import { CRAWL_FETCH_TIERS, CRAWL_TIER } from '../../common/tiers.js';
import { planTiers } from '../scheduler/tier-plan.js';

export interface CrawlTierPlan {
  /** Tiers a page may be fetched at, in escalation order; the first is where every page starts. */
  tiers: string[];
  /** What each planned page reserves: the dearest planned tier's price with the add-ons. */
  reserveMicrocents: number;
}

/**
 * The SPEC 2.5 add-ons each page of a crawl takes, from its `advanced`
 * options (use_proxy, screenshot), by the scrape's rule (addOnsOf).
 */
export function crawlAddOns(config: CrawlConfig): AddOn[] {
  return addOnsOf('auto', config.advanced ?? undefined);
}

/**
 * A crawl's tier plan, by the scrape's policy (planTiers): render_js plans the
 * browser (tier 4) for every page, force_tier that tier alone, max_tier every
 * tier up to it (a blocked page or a JavaScript shell escalates as a scrape
 * does). A crawl that names none of them stays at tier 1, so a default crawl
 * reserves and costs the tier-1 price per page. max_credits bounds the crawl
 * as a whole (its page count), not one page, so it is not a per-page filter
 * here. Only the deployed tiers the crawl pool runs (CRAWL_FETCH_TIERS) are
 * planned. Each page pays the add-ons on top of its tier, as a scrape does.
 */
export function crawlTierPlan(config: CrawlConfig, availableTiers: readonly string[]): CrawlTierPlan {
  const renderJs = config.advanced?.render_js === true;
  const cc = config.cost_controls ?? {};
  const asked = renderJs || cc.force_tier !== undefined || cc.max_tier !== undefined;
  const plan = planTiers({
    mode: 'auto',
    renderJs,
    addOns: crawlAddOns(config),
    costControls: { forceTier: cc.force_tier, maxTier: cc.max_tier ?? (asked ? undefined : CRAWL_TIER) },
    availableTiers: availableTiers.filter((t) => (CRAWL_FETCH_TIERS as readonly string[]).includes(t)),
  });
  return { tiers: plan.tiers, reserveMicrocents: plan.maxCostMicrocents };
}

/**
 * What a completed page costs: its tier's price and the crawl's add-ons,
 * never more than the page reserved (crawls.price_microcents, the dearest
 * planned tier with the add-ons), so a test key's crawl, which reserves
 * nothing, costs nothing.
 */
export function pageCharge(reservedPerPage: number, tier: string, config: CrawlConfig): number {
  return Math.min(tierPrice(tier) + addOnsPrice(crawlAddOns(config)), reservedPerPage);
}
