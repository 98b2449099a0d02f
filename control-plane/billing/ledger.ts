import type pg from 'pg';
import { CREDIT_EVENTS_CTE } from './credit-events.js';

export type LedgerKind = 'deposit' | 'reserve' | 'settle' | 'refund' | 'adjustment';

export interface LedgerEntryInput {
  accountId: string;
  kind: LedgerKind;
  /** Signed: negative takes money from the balance. */
  amountMicrocents: number;
  reference: string;
}

export type LedgerResult =
  | { applied: true; balanceMicrocents: number }
  | { applied: false; reason: 'duplicate' | 'insufficient'; balanceMicrocents: number };

/** The ledger reference of everything a job reserves, settles and refunds. */
export function jobReference(jobId: string): string {
  return `job:${jobId}`;
}

/**
 * The common table expressions that apply one ledger entry and move the
 * cached balance with it, for a statement that names its input as the
 * relation `source` (at most one row: account_id, kind, amount, reference).
 * The account row lock serialises entries per account; the unique
 * (reference, kind) key makes a retried entry a no-op (ON CONFLICT waits for
 * a concurrent twin and skips); an entry that would take the balance below
 * zero is not written. They expose `ledger_account` (the balance before) and
 * `ledger_entry` (the balance after, when written). An entry that takes the
 * balance below a credits threshold records its event in the same statement
 * (credit-events.ts).
 */
export function ledgerEntryCtes(source: string): string {
  return `ledger_account AS (
       SELECT accounts.id, accounts.balance_microcents, s.kind, s.amount, s.reference
       FROM accounts JOIN ${source} s ON accounts.id = s.account_id FOR UPDATE OF accounts
     ), ledger_entry AS (
       INSERT INTO ledger_entries (account_id, kind, amount_microcents, balance_after_microcents, reference)
       SELECT id, kind, amount, balance_microcents + amount, reference FROM ledger_account
       WHERE balance_microcents + amount >= 0
         AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.reference = ledger_account.reference AND e.kind = ledger_account.kind)
       ON CONFLICT (reference, kind) DO NOTHING
       RETURNING account_id, balance_after_microcents
     ), ledger_moved AS (
       UPDATE accounts SET balance_microcents = ledger_entry.balance_after_microcents
       FROM ledger_entry WHERE accounts.id = ledger_entry.account_id
     ), ${CREDIT_EVENTS_CTE}`;
}

/**
 * Applies one ledger entry in one statement (inside the caller's
 * transaction, or on its own).
 */
export async function applyLedgerEntry(client: pg.PoolClient | pg.Pool, entry: LedgerEntryInput): Promise<LedgerResult> {
  const res = await client.query<{ before: string; after: string | null; duplicate: boolean }>(
    `WITH ledger_input AS (SELECT $1::uuid AS account_id, $2::text AS kind, $3::bigint AS amount, $4::text AS reference),
     ${ledgerEntryCtes('ledger_input')}
     SELECT ledger_account.balance_microcents AS before, (SELECT balance_after_microcents FROM ledger_entry) AS after,
            EXISTS (SELECT 1 FROM ledger_entries WHERE reference = $4 AND kind = $2) AS duplicate
     FROM ledger_account`,
    [entry.accountId, entry.kind, entry.amountMicrocents, entry.reference],
  );
  const row = res.rows[0];
  if (!row) throw new Error(`account ${entry.accountId} does not exist`);
  const before = Number(row.before);
  if (row.after !== null) return { applied: true, balanceMicrocents: Number(row.after) };
  if (!row.duplicate && before + entry.amountMicrocents < 0) return { applied: false, reason: 'insufficient', balanceMicrocents: before };
  return { applied: false, reason: 'duplicate', balanceMicrocents: before };
}

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
