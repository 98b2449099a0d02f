import type pg from 'pg';
import { BALANCE_TIERS, balanceTier, type BalanceTier } from '../../common/balance-tiers.js';
import type { Caller } from './caller.js';
import type { MemberRole } from './organizations.js';
import type { UserRecord, Users } from './users.js';

export interface CurrentUserRecord {
  /** Null for an API key of an organization's account (and of the operator's accounts, which have no user). */
  user: UserRecord | null;
  account: { id: string; balanceMicrocents: number; isEnterprise: boolean };
  tier: BalanceTier;
  /** The next tier up and what it takes; null at the top and for enterprise accounts. */
  nextTier: { tier: BalanceTier; balanceNeededMicrocents: number } | null;
  /** The user's organizations, or the one owning the key's account (role null). */
  organizations: Array<{ id: string; name: string; role: MemberRole | null }>;
  /** The organization the call acts for, if any. */
  actingOrganization: { id: string; name: string; role: MemberRole | null } | null;
  credential: Caller['credential'];
}

/** The tier above this one for a balance, and the balance still missing to reach it. */
export function nextTierOf(balanceMicrocents: number, isEnterprise: boolean): CurrentUserRecord['nextTier'] {
  if (isEnterprise) return null;
  const current = balanceTier(balanceMicrocents, false);
  const next = BALANCE_TIERS[BALANCE_TIERS.indexOf(current) + 1];
  return next ? { tier: next, balanceNeededMicrocents: next.minBalanceMicrocents - balanceMicrocents } : null;
}

/**
 * The current-user record (SPEC 2.16) for any caller: a session user (on
 * their own account or an organization's), or an API key, whose user is the
 * one owning the key's personal account.
 */
export async function currentUser(pool: pg.Pool, users: Users, caller: Caller): Promise<CurrentUserRecord> {
  const user = caller.userId ? await users.byId(caller.userId) : await users.byAccount(caller.accountId);
  const account = (
    await pool.query<{ id: string; balance_microcents: string; is_enterprise: boolean }>(
      'SELECT id, balance_microcents, is_enterprise FROM accounts WHERE id = $1',
      [caller.accountId],
    )
  ).rows[0]!;
  const organizations = user
    ? (
        await pool.query<{ id: string; name: string; role: MemberRole | null; account_id: string }>(
          `SELECT o.id, o.name, m.role, o.account_id FROM organizations o JOIN organization_members m ON m.organization_id = o.id
            WHERE m.user_id = $1 ORDER BY o.created_at, o.id`,
          [user.id],
        )
      ).rows
    : (
        await pool.query<{ id: string; name: string; role: MemberRole | null; account_id: string }>(
          'SELECT id, name, NULL AS role, account_id FROM organizations WHERE account_id = $1',
          [caller.accountId],
        )
      ).rows;
  const balance = Number(account.balance_microcents);
  const acting = organizations.find((o) => o.id === caller.organizationId || o.account_id === caller.accountId);
  return {
    user,
    account: { id: account.id, balanceMicrocents: balance, isEnterprise: account.is_enterprise },
    tier: balanceTier(balance, account.is_enterprise),
    nextTier: nextTierOf(balance, account.is_enterprise),
    organizations: organizations.map(({ id, name, role }) => ({ id, name, role })),
    actingOrganization: acting ? { id: acting.id, name: acting.name, role: acting.role } : null,
    credential: caller.credential,
  };
}
