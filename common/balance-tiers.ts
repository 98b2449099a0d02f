import { MICROCENTS_PER_USD as USD } from './pricing.js';

/**
 * The limit tiers of SPEC 8.1, chosen by an account's balance the moment it
 * changes, and the enterprise tier an operator grants with the account flag.
 * Rate limits count per API key; dispatch entitlement per account.
 */
export interface BalanceTier {
  /** Stable identifier: free, basic, growth, scale, high_volume, enterprise. */
  id: string;
  name: string;
  /** Lowest balance of the tier, microcents (inclusive); the next tier's minimum is this one's ceiling. */
  minBalanceMicrocents: number;
  requestsPerMinute: number;
  burstPerSecond: number;
  concurrentRequests: number;
  /** Admissions of dispatching requests (scrape, crawl, batch) per minute. */
  effectivePostPerMinute: number;
}


/** Ordered by balance, lowest first. */
export const BALANCE_TIERS: readonly BalanceTier[] = [
  { id: 'free', name: 'Free', minBalanceMicrocents: 0, requestsPerMinute: 30, burstPerSecond: 5, concurrentRequests: 3, effectivePostPerMinute: 15 },
  { id: 'basic', name: 'Basic', minBalanceMicrocents: 5 * USD, requestsPerMinute: 60, burstPerSecond: 10, concurrentRequests: 10, effectivePostPerMinute: 30 },
  { id: 'growth', name: 'Growth', minBalanceMicrocents: 50 * USD, requestsPerMinute: 100, burstPerSecond: 20, concurrentRequests: 15, effectivePostPerMinute: 50 },
  { id: 'scale', name: 'Scale', minBalanceMicrocents: 200 * USD, requestsPerMinute: 300, burstPerSecond: 30, concurrentRequests: 25, effectivePostPerMinute: 150 },
  { id: 'high_volume', name: 'High Volume', minBalanceMicrocents: 500 * USD, requestsPerMinute: 500, burstPerSecond: 50, concurrentRequests: 50, effectivePostPerMinute: 250 },
];

/** The enterprise flag's limits: the spec's ceilings ("up to"). */
export const ENTERPRISE_TIER: BalanceTier = {
  id: 'enterprise',
  name: 'Enterprise',
  minBalanceMicrocents: 0,
  requestsPerMinute: 10_000,
  burstPerSecond: 500,
  concurrentRequests: 500,
  effectivePostPerMinute: 5_000,
};

/** The tier an account's balance (and enterprise flag) puts it in. */
export function balanceTier(balanceMicrocents: number, isEnterprise: boolean): BalanceTier {
  if (isEnterprise) return ENTERPRISE_TIER;
  let tier = BALANCE_TIERS[0]!;
  for (const candidate of BALANCE_TIERS) if (balanceMicrocents >= candidate.minBalanceMicrocents) tier = candidate;
  return tier;
}
