import type pg from 'pg';

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

/**
 * Applies one ledger entry and moves the cached balance with it, in one
 * statement (inside the caller's transaction, or on its own). The account row
 * lock serialises entries per account; the unique (reference, kind) key makes
 * a retried entry a no-op: ON CONFLICT waits for a concurrent twin and skips.
 */
export async function applyLedgerEntry(client: pg.PoolClient | pg.Pool, entry: LedgerEntryInput): Promise<LedgerResult> {
  const res = await client.query<{ before: string; after: string | null; duplicate: boolean }>(
    `WITH account AS (
       SELECT balance_microcents FROM accounts WHERE id = $1 FOR UPDATE
     ), entry AS (
       INSERT INTO ledger_entries (account_id, kind, amount_microcents, balance_after_microcents, reference)
       SELECT $1, $2, $3::bigint, balance_microcents + $3::bigint, $4 FROM account
       WHERE balance_microcents + $3::bigint >= 0
         AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE reference = $4 AND kind = $2)
       ON CONFLICT (reference, kind) DO NOTHING
       RETURNING balance_after_microcents
     ), moved AS (
       UPDATE accounts SET balance_microcents = entry.balance_after_microcents FROM entry WHERE accounts.id = $1
     )
     SELECT account.balance_microcents AS before, (SELECT balance_after_microcents FROM entry) AS after,
            EXISTS (SELECT 1 FROM ledger_entries WHERE reference = $4 AND kind = $2) AS duplicate
     FROM account`,
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
