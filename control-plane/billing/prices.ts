/**
 * Prices in microcents (1 USD = 1,000,000). One credit is 200 microcents,
 * the price of a tier-1 request (docs/billing.md).
 */
export const MICROCENTS_PER_CREDIT = 200;

export const TIER_PRICES: Readonly<Record<string, number>> = {
  '1': 200,
  '2': 300,
  '3': 2_000,
  '3.5': 2_500,
  '4': 4_000,
  '5': 20_000,
};

/** Escalation order of the fetch tiers. */
export const TIER_ORDER = ['1', '2', '3', '3.5', '4', '5'] as const;

export const TIER_POOLS: Readonly<Record<string, string>> = {
  '1': 'fetch-t1',
  '2': 'fetch-t2',
  '3': 'fetch-t3',
  '3.5': 'fetch-t3',
  '4': 'browser',
  '5': 'captcha',
};

export const EXTRACT_PRICE = 2_500;
export const EXTRACT_LARGE_PRICE = 5_000;
export const EXTRACT_LARGE_THRESHOLD_CHARS = 200_000;

export function toCredits(microcents: number): number {
  return Math.round((microcents / MICROCENTS_PER_CREDIT) * 1000) / 1000;
}

export function fromCredits(credits: number): number {
  return Math.round(credits * MICROCENTS_PER_CREDIT);
}
