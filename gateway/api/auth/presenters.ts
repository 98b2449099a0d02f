import type { GetCurrentUserResponse, GetWelcomeStatusResponse, OrganizationMembership, Session, Tier, User } from '../../../proto/gen/trawl/v1/accounts_pb.js';
import { toCredits, toUsd } from '../../../common/pricing.js';

export function presentSession(session: Session | undefined) {
  return { access_token: session?.accessToken ?? '', token_type: 'bearer' as const, expires_at: session?.expiresAt ?? '' };
}

export function presentUser(user: User) {
  return { id: user.id, email: user.email, role: user.role as 'user' | 'admin', created_at: user.createdAt };
}

function presentTier(tier: Tier) {
  return {
    id: tier.id,
    name: tier.name,
    requests_per_minute: tier.requestsPerMinute,
    burst_per_second: tier.burstPerSecond,
    concurrent_requests: tier.concurrentRequests,
    effective_post_per_minute: tier.effectivePostPerMinute,
  };
}

function presentMembership(m: OrganizationMembership) {
  return { id: m.id, name: m.name, role: (m.role || null) as 'owner' | 'admin' | 'member' | null };
}

export function presentCurrentUser(me: GetCurrentUserResponse) {
  const balance = me.account?.balanceMicrocents ?? 0n;
  const next = me.nextTier;
  return {
    user: me.user ? presentUser(me.user) : { id: null, email: null, role: null, created_at: null },
    account: {
      id: me.account?.id ?? '',
      balance_microcents: Number(balance),
      balance_credits: toCredits(balance),
      balance_usd: toUsd(balance),
      is_enterprise: me.account?.isEnterprise ?? false,
    },
    tier: {
      ...presentTier(me.tier!),
      next_tier:
        next?.tier !== undefined
          ? {
              ...presentTier(next.tier),
              min_balance_usd: toUsd(next.minBalanceMicrocents),
              balance_needed_microcents: Number(next.balanceNeededMicrocents),
              balance_needed_usd: toUsd(next.balanceNeededMicrocents),
            }
          : null,
    },
    organizations: me.organizations.map(presentMembership),
    acting_organization: me.actingOrganization ? presentMembership(me.actingOrganization) : null,
    credential: me.credential as 'api_key' | 'session',
  };
}

export function presentWelcomeStatus(status: GetWelcomeStatusResponse) {
  return {
    has_reduced_bonus: status.hasReducedBonus,
    sibling_accounts: status.siblingAccounts,
    has_deposit: status.hasDeposit,
    can_unlock: status.canUnlock,
    granted_bonus_credits: toCredits(status.grantedBonusMicrocents),
    remaining_bonus_credits: toCredits(status.remainingBonusMicrocents),
    unlocked_at: status.unlockedAt ?? null,
  };
}
