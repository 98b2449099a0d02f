import type pg from 'pg';
import { createApiKey } from '../accounts/api-keys.js';
import { withTransaction } from '../billing/ledger.js';
import type { CodeGrant } from './codes.js';

/**
 * The name of a key an exchange issues (SPEC 5 rule 4): `n8n Integration`
 * for source n8n, `OAuth (<source>)` for another source, and
 * `OAuth (<client name>)` when the authorization named no source.
 */
export function integrationKeyName(source: string, clientName: string): string {
  if (source.toLowerCase() === 'n8n') return 'n8n Integration';
  return `OAuth (${source || clientName})`;
}

export interface IssuedIntegrationKey {
  id: string;
  key: string;
  /** Keys the integration held before, revoked by this exchange. */
  revokedKeyIds: string[];
}

/**
 * Issues the API key of a consumed code and revokes every key the same
 * integration (account, client, source) obtained before (SPEC 5 rule 3).
 * Exchanges of one integration take a transaction-level advisory lock in
 * turn, so of two concurrent ones the later revokes the earlier's key: one
 * key stays live. A key whose recording fails is revoked at once.
 */
export async function issueIntegrationKey(
  pool: pg.Pool,
  grant: CodeGrant,
  opts: { name: string; masterKeyHex: string },
): Promise<IssuedIntegrationKey> {
  const created = await createApiKey(pool, {
    accountId: grant.accountId,
    name: opts.name,
    environment: 'live',
    masterKeyHex: opts.masterKeyHex,
    scopes: [grant.scope],
    createdByUserId: grant.userId,
  });
  try {
    const revokedKeyIds = await withTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`oauth:${grant.accountId}:${grant.clientId}:${grant.source}`]);
      await client.query('INSERT INTO oauth_issued_keys (api_key_id, account_id, client_id, source, user_id) VALUES ($1, $2, $3, $4, $5)', [
        created.id,
        grant.accountId,
        grant.clientId,
        grant.source,
        grant.userId,
      ]);
      const revoked = await client.query<{ id: string }>(
        `UPDATE api_keys SET revoked_at = now()
          WHERE revoked_at IS NULL AND id IN (
            SELECT api_key_id FROM oauth_issued_keys
             WHERE account_id = $1 AND client_id = $2 AND source = $3 AND api_key_id <> $4)
          RETURNING id`,
        [grant.accountId, grant.clientId, grant.source, created.id],
      );
      return revoked.rows.map((r) => r.id);
    });
    return { id: created.id, key: created.key, revokedKeyIds };
  } catch (err) {
    await pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.id]).catch(() => undefined);
    throw err;
  }
}
