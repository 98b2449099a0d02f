/**
 * The fetch tiers, in escalation order, and the worker pool that runs each.
 * Every layer (gateway validation, tier planning, billing, the job view)
 * reads them from here.
 */
export const TIER_ORDER = ['1', '2', '3', '3.5', '4', '5'] as const;
export type Tier = (typeof TIER_ORDER)[number];

/** Tiers a caller may name in cost_controls (5, captcha solving, is chosen only by escalation). */
export const CALLER_TIERS = ['1', '2', '3', '3.5', '4'] as const;

/** The highest tier a request reaches when the caller sets no max_tier. */
export const DEFAULT_MAX_TIER: Tier = '4';

/** Tier 3.5 is tier 3 through the premium proxy pool: planned only when asked for. */
export const PREMIUM_PROXY_TIER: Tier = '3.5';

/** The browser tier, and the one `savings` is measured against. */
export const BROWSER_TIER: Tier = '4';

/** The highest tier that fetches without a browser: what html mode, a method other than GET and follow_redirects false run on. */
export const HTTP_MAX_TIER: Tier = '2';

/** Where prefer_speed starts, and from where a sync request is handed off early: the first tier that runs a browser. */
export const SLOW_TIER: Tier = '3';

export const TIER_POOLS: Readonly<Record<Tier, string>> = {
  '1': 'fetch-t1',
  '2': 'fetch-t2',
  '3': 'fetch-t3',
  '3.5': 'fetch-t3',
  '4': 'browser',
  '5': 'captcha',
};

/** The pool that runs caller-supplied content through the pipeline; billed as tier 3.5 (SPEC 2.1). */
export const EXTRACT_POOL = 'extract';
export const EXTRACT_TIER: Tier = '3.5';

/** The pool that maps sites; its fetches are plain HTTP (tier 1). */
export const MAP_POOL = 'map';
export const MAP_TIER: Tier = '1';

/** The pool that reads PDFs and images (modes pdf and ocr, advanced.ocr); its fetches are plain HTTP (tier 1). */
export const DOCUMENT_POOL = 'document';
export const DOCUMENT_TIER: Tier = '1';

export function isTier(value: string): value is Tier {
  return (TIER_ORDER as readonly string[]).includes(value);
}

/** Position in the escalation order; -1 for anything that is not a tier. */
export function tierRank(tier: string): number {
  return TIER_ORDER.indexOf(tier as Tier);
}

/**
 * The pool that crawls sites: batches of frontier pages, each fetched at tier 1 unless the crawl's
 * tier plan says otherwise (docs/decisions/0020-crawl-tiers.md).
 */
export const CRAWL_POOL = 'crawl';
export const CRAWL_TIER: Tier = '1';
/** Tiers the crawl pool fetches at itself: plain HTTP, impit, and Chromium with the stealth or the plain profile. */
export const CRAWL_FETCH_TIERS: readonly Tier[] = ['1', '2', '3', '4'];

/** Tier 5 solves captchas: planned when deployed and affordable, entered only from an attempt classified `captcha` (SPEC 2.1). */
export const CAPTCHA_TIER: Tier = '5';
