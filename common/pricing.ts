import { TIER_ORDER, type Tier } from './tiers.js';

/**
 * Prices in microcents (1 USD = 1,000,000). One credit is 200 microcents,
 * the price of a tier-1 request (docs/billing.md). Conversions between
 * credits and microcents happen only through the functions below.
 */
export const MICROCENTS_PER_CREDIT = 200;

export const TIER_PRICES: Readonly<Record<Tier, number>> = {
  '1': 200,
  '2': 300,
  '3': 2_000,
  '3.5': 2_500,
  '4': 4_000,
  '5': 20_000,
};

/** /api/v1/extract: the tier-3.5 price, doubled above 200,000 characters. */
export const EXTRACT_PRICE = 2_500;
export const EXTRACT_LARGE_PRICE = 5_000;
export const EXTRACT_LARGE_THRESHOLD_CHARS = 200_000;

/** /api/v1/map: one credit, whatever the number of URLs (SPEC 4.2). */
export const MAP_PRICE = MICROCENTS_PER_CREDIT;

/**
 * The add-ons of SPEC 2.5, charged with the successful attempt on top of its
 * tier's price, from the interface's credit-table column (docs/billing.md):
 * use_own_proxy's entry there is $0.0008, four credits.
 */
export const ADD_ON_PRICES = {
  screenshot: 1 * MICROCENTS_PER_CREDIT,
  generate_pdf: 2 * MICROCENTS_PER_CREDIT,
  ocr: 5 * MICROCENTS_PER_CREDIT,
  use_proxy: 1 * MICROCENTS_PER_CREDIT,
  use_own_proxy: 800,
} as const;
export type AddOn = keyof typeof ADD_ON_PRICES;

/** advanced.ocr and mode ocr: five credits on top of the fetch (SPEC 2.5). */
export const OCR_PRICE = ADD_ON_PRICES.ocr;

/** The add-ons a scrape request takes, from its mode and `advanced` options (mode ocr reads images as advanced.ocr does). */
export function addOnsOf(mode: string, advanced: Readonly<Record<string, unknown>> | undefined): AddOn[] {
  const a = advanced ?? {};
  return (Object.keys(ADD_ON_PRICES) as AddOn[]).filter((name) => a[name] === true || (name === 'ocr' && mode === 'ocr'));
}

/** What the add-ons cost together. */
export function addOnsPrice(addOns: readonly AddOn[]): number {
  return addOns.reduce((sum, name) => sum + ADD_ON_PRICES[name], 0);
}

/**
 * Crawl change_tracking.include_diff: a surcharge on each page the diff is
 * made for, on top of its tier price (SPEC 2.10): one credit in content
 * mode, two in structured mode.
 */
export const CHANGE_DIFF_PRICES: Readonly<Record<'content' | 'structured', number>> = {
  content: MICROCENTS_PER_CREDIT,
  structured: 2 * MICROCENTS_PER_CREDIT,
};

export function extractPrice(chars: number): number {
  return chars > EXTRACT_LARGE_THRESHOLD_CHARS ? EXTRACT_LARGE_PRICE : EXTRACT_PRICE;
}

export function tierPrice(tier: string): number {
  return (TIER_PRICES as Record<string, number>)[tier] ?? Infinity;
}

/** Microcents as credits, for the public API (fractional credits are exact multiples of 1/200). */
export function toCredits(microcents: number | bigint | string): number {
  return Number(microcents) / MICROCENTS_PER_CREDIT;
}

export function toMicrocents(credits: number): number {
  return Math.round(credits * MICROCENTS_PER_CREDIT);
}

/** 1 USD = 1,000,000 microcents; one US cent is 10,000. */
export const MICROCENTS_PER_USD = 1_000_000;
export const MICROCENTS_PER_USD_CENT = MICROCENTS_PER_USD / 100;

/** Microcents as US dollars, for the public API. */
export function toUsd(microcents: number | bigint | string): number {
  return Number(microcents) / MICROCENTS_PER_USD;
}

export { TIER_ORDER };
