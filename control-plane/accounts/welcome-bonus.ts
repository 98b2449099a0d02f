import { isIP } from 'node:net';
import freeMailDomains from 'email-providers/all.json' with { type: 'json' };
import type pg from 'pg';
import { parse as parseHost } from 'tldts';
import { TrawlError } from '../../common/errors.js';
import { applyLedgerEntry, withTransaction } from '../billing/ledger.js';

/**
 * The welcome bonus. A new user's account is credited with the full bonus,
 * or with the reduced one when it has "siblings": other users who signed up
 * from the same client address, or with an e-mail address at the same
 * registrable domain (free-mail providers such as gmail.com do not count:
 * sharing one says nothing). An account with the reduced bonus can unlock
 * the rest (full minus reduced) once, after its first deposit.
 */
export interface WelcomeBonusAmounts {
  fullMicrocents: number;
  reducedMicrocents: number;
}

/** Ledger references of the bonus credits: one per account each, so a retried credit is applied once. */
export function signupBonusReference(accountId: string): string {
  // The reference createAccount gives an opening balance: the operator's accounts and users' alike.
  return `signup:${accountId}`;
}
export function unlockBonusReference(accountId: string): string {
  return `welcome-bonus:unlock:${accountId}`;
}

/** A deposit that is money paid in, not a bonus: what unlocking requires. */
const PAID_DEPOSIT = `kind = 'deposit' AND reference NOT LIKE 'signup:%' AND reference NOT LIKE 'welcome-bonus:%'`;

/** Siblings listed (and stored) per account at most. */
const MAX_SIBLINGS = 10;

const FREE_MAIL = new Set<string>(freeMailDomains as string[]);

/** The registrable domain of an e-mail address that can link accounts; null for free-mail providers and unparsable hosts. */
export function siblingEmailDomain(email: string): string | null {
  const host = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const { domain, isIp } = parseHost(host);
  if (!domain || isIp || FREE_MAIL.has(domain) || FREE_MAIL.has(host)) return null;
  return domain;
}

/** A client address as Postgres stores it, or null when it is not one. */
export function signupAddress(ip: string | null | undefined): string | null {
  const value = ip?.trim() ?? '';
  return isIP(value) ? value : null;
}

/** "john@example.co.uk" as "j***@e***.co.uk": enough to recognise one's own account, not to learn someone's address. */
export function obfuscateEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const host = email.slice(at + 1);
  const suffix = parseHost(host).publicSuffix ?? host.slice(host.lastIndexOf('.') + 1);
  return `${local.slice(0, 1)}***@${host.slice(0, 1)}***.${suffix}`;
}

/**
 * Credits a new account with its welcome bonus, inside the transaction that
 * creates its user (already inserted with its sign-up address and domain).
 * Sign-ups from one address or domain are serialised by advisory locks, so
 * two at once cannot both miss each other.
 */
export async function grantWelcomeBonus(
  client: pg.PoolClient,
  input: { accountId: string; userId: string; ip: string | null; emailDomain: string | null },
  amounts: WelcomeBonusAmounts,
): Promise<{ grantedMicrocents: number; reduced: boolean }> {
  for (const lock of [input.ip && `signup-ip:${input.ip}`, input.emailDomain && `signup-domain:${input.emailDomain}`]) {
    if (lock) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lock]);
  }
  // Kept: the ones sharing the e-mail domain first (a busy shared address can have many), then the most recent.
  const siblings = await client.query<{ id: string }>(
    `SELECT id FROM users
      WHERE id <> $1 AND ((signup_ip IS NOT NULL AND signup_ip = $2::inet) OR (signup_email_domain IS NOT NULL AND signup_email_domain = $3))
      ORDER BY COALESCE(signup_email_domain = $3, false) DESC, created_at DESC LIMIT ${MAX_SIBLINGS}`,
    [input.userId, input.ip, input.emailDomain],
  );
  const siblingIds = siblings.rows.map((r) => r.id);
  const reduced = siblingIds.length > 0;
  const grantedMicrocents = reduced ? amounts.reducedMicrocents : amounts.fullMicrocents;
  await client.query(
    `INSERT INTO welcome_bonuses (account_id, full_microcents, granted_microcents, reduced, sibling_user_ids) VALUES ($1, $2, $3, $4, $5)`,
    [input.accountId, amounts.fullMicrocents, grantedMicrocents, reduced, siblingIds],
  );
  if (grantedMicrocents > 0) {
    await applyLedgerEntry(client, {
      accountId: input.accountId,
      kind: 'deposit',
      amountMicrocents: grantedMicrocents,
      reference: signupBonusReference(input.accountId),
    });
  }
  return { grantedMicrocents, reduced };
}

export interface WelcomeStatus {
  hasReducedBonus: boolean;
  siblingAccounts: string[];
  hasDeposit: boolean;
  canUnlock: boolean;
  grantedMicrocents: number;
  remainingMicrocents: number;
  unlockedAt: Date | null;
}

interface BonusRow {
  full_microcents: string;
  granted_microcents: string;
  reduced: boolean;
  sibling_user_ids: string[];
  unlock_idempotency_key: string | null;
  unlocked_microcents: string | null;
  unlock_balance_after_microcents: string | null;
  unlocked_at: Date | null;
}

async function hasPaidDeposit(db: pg.Pool | pg.PoolClient, accountId: string): Promise<boolean> {
  const res = await db.query(`SELECT 1 FROM ledger_entries WHERE account_id = $1 AND ${PAID_DEPOSIT} LIMIT 1`, [accountId]);
  return res.rowCount !== 0;
}

function remainingOf(row: BonusRow | undefined): number {
  if (!row || !row.reduced || row.unlocked_at) return 0;
  return Number(row.full_microcents) - Number(row.granted_microcents);
}

/** The bonus state of an account; accounts created without a bonus (the operator's) read as having none. */
export async function welcomeStatus(pool: pg.Pool, accountId: string): Promise<WelcomeStatus> {
  const row = (await pool.query<BonusRow>('SELECT * FROM welcome_bonuses WHERE account_id = $1', [accountId])).rows[0];
  const siblings = row?.sibling_user_ids.length
    ? (await pool.query<{ email: string }>('SELECT email FROM users WHERE id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], id)', [row.sibling_user_ids])).rows
    : [];
  const hasDeposit = await hasPaidDeposit(pool, accountId);
  const remaining = remainingOf(row);
  return {
    hasReducedBonus: row?.reduced ?? false,
    siblingAccounts: siblings.map((s) => obfuscateEmail(s.email)),
    hasDeposit,
    canUnlock: remaining > 0 && hasDeposit,
    grantedMicrocents: row ? Number(row.granted_microcents) : 0,
    remainingMicrocents: remaining,
    unlockedAt: row?.unlocked_at ?? null,
  };
}

export interface UnlockResult {
  unlockedMicrocents: number;
  unlockedAt: Date;
  balanceAfterMicrocents: number;
}

function unlockResultOf(row: BonusRow): UnlockResult {
  return {
    unlockedMicrocents: Number(row.unlocked_microcents),
    unlockedAt: row.unlocked_at!,
    balanceAfterMicrocents: Number(row.unlock_balance_after_microcents),
  };
}

/**
 * Credits the rest of the full bonus, once. The bonus row is locked for the
 * whole check-and-credit, so concurrent unlocks run one after another: a
 * repeat with the same idempotency key answers what the first answered, any
 * other key after the unlock is a conflict.
 */
export async function unlockWelcomeBonus(pool: pg.Pool, accountId: string, idempotencyKey: string): Promise<UnlockResult> {
  return withTransaction(pool, async (client) => {
    const row = (await client.query<BonusRow>('SELECT * FROM welcome_bonuses WHERE account_id = $1 FOR UPDATE', [accountId])).rows[0];
    if (!row || !row.reduced) {
      throw new TrawlError('WELCOME_BONUS_NOT_REDUCED', 'This account received the full welcome bonus; there is nothing to unlock');
    }
    if (row.unlocked_at) {
      if (row.unlock_idempotency_key === idempotencyKey) return unlockResultOf(row);
      throw new TrawlError('WELCOME_BONUS_ALREADY_UNLOCKED', 'The welcome bonus has already been unlocked', {
        unlocked_at: row.unlocked_at.toISOString(),
      });
    }
    if (!(await hasPaidDeposit(client, accountId))) {
      throw new TrawlError('DEPOSIT_REQUIRED', 'Unlocking the rest of the welcome bonus needs at least one deposit on the account');
    }
    const amount = remainingOf(row);
    const entry = await applyLedgerEntry(client, {
      accountId,
      kind: 'deposit',
      amountMicrocents: amount,
      reference: unlockBonusReference(accountId),
    });
    const updated = await client.query<BonusRow>(
      `UPDATE welcome_bonuses SET unlock_idempotency_key = $2, unlocked_microcents = $3, unlock_balance_after_microcents = $4, unlocked_at = now()
        WHERE account_id = $1 RETURNING *`,
      [accountId, idempotencyKey, amount, entry.balanceMicrocents],
    );
    return unlockResultOf(updated.rows[0]!);
  });
}
