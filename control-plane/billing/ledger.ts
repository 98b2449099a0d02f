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
 * Applies one ledger entry and moves the cached balance with it, inside the
 * caller's transaction. The account row lock serialises entries per account;
 * the unique (reference, kind) key makes a retried entry a no-op.
 */
export async function applyLedgerEntry(client: pg.PoolClient, entry: LedgerEntryInput): Promise<LedgerResult> {
  const account = await client.query<{ balance_microcents: string }>(
    'SELECT balance_microcents FROM accounts WHERE id = $1 FOR UPDATE',
    [entry.accountId],
  );
  if (account.rowCount === 0) throw new Error(`account ${entry.accountId} does not exist`);
  const balance = Number(account.rows[0]!.balance_microcents);

  const existing = await client.query('SELECT 1 FROM ledger_entries WHERE reference = $1 AND kind = $2', [
    entry.reference,
    entry.kind,
  ]);
  if (existing.rowCount !== 0) return { applied: false, reason: 'duplicate', balanceMicrocents: balance };

  const after = balance + entry.amountMicrocents;
  if (after < 0) return { applied: false, reason: 'insufficient', balanceMicrocents: balance };

  await client.query(
    `INSERT INTO ledger_entries (account_id, kind, amount_microcents, balance_after_microcents, reference)
     VALUES ($1, $2, $3, $4, $5)`,
    [entry.accountId, entry.kind, entry.amountMicrocents, after, entry.reference],
  );
  await client.query('UPDATE accounts SET balance_microcents = $2 WHERE id = $1', [entry.accountId, after]);
  return { applied: true, balanceMicrocents: after };
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
