import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { apiKeyPrefix, decryptApiKey, digestApiKey, encryptApiKey, generateApiKey } from '../accounts/api-keys.js';
import { isUuid } from '../../common/ids.js';

/** A key as its account sees it: never the key itself, which is shown once. */
export interface StoredKey {
  id: string;
  name: string;
  keyPrefix: string;
  scopes: string[];
  environment: 'live' | 'test';
  createdAt: Date;
  lastUsedAt: Date | null;
}

interface KeyRow {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  environment: 'live' | 'test';
  created_at: Date;
  last_used_at: Date | null;
}

const KEY_COLUMNS = 'id, name, key_prefix, scopes, environment, created_at, last_used_at';

const toStored = (row: KeyRow): StoredKey => ({
  id: row.id,
  name: row.name,
  keyPrefix: row.key_prefix,
  scopes: row.scopes,
  environment: row.environment,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** Another account's key, a revoked key and an id that is no UUID all answer alike. */
export function keyNotFound(keyId: string): TrawlError {
  return new TrawlError('NOT_FOUND', `No API key ${keyId}`);
}

function checkedId(keyId: string): string {
  if (!isUuid(keyId)) throw keyNotFound(keyId);
  return keyId;
}

/** Statements on one account's live (not revoked) keys. */
export function createKeyStore(pool: pg.Pool, masterKeyHex: string) {
  return {
    async list(accountId: string): Promise<StoredKey[]> {
      const res = await pool.query<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id`,
        [accountId],
      );
      return res.rows.map(toStored);
    },

    async get(accountId: string, keyId: string): Promise<StoredKey> {
      const res = await pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL`, [
        checkedId(keyId),
        accountId,
      ]);
      if (!res.rows[0]) throw keyNotFound(keyId);
      return toStored(res.rows[0]);
    },

    async rename(accountId: string, keyId: string, name: string): Promise<StoredKey> {
      const res = await pool.query<KeyRow>(
        `UPDATE api_keys SET name = $3 WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
        [checkedId(keyId), accountId, name],
      );
      if (!res.rows[0]) throw keyNotFound(keyId);
      return toStored(res.rows[0]);
    },

    async revoke(accountId: string, keyId: string): Promise<void> {
      const res = await pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL', [
        checkedId(keyId),
        accountId,
      ]);
      if (res.rowCount === 0) throw keyNotFound(keyId);
    },

    /** A new secret under the same id (limits and usage stay with it); the old secret no longer matches. */
    async regenerate(accountId: string, keyId: string): Promise<StoredKey & { key: string }> {
      const current = await this.get(accountId, keyId);
      const key = generateApiKey(current.environment);
      const res = await pool.query<KeyRow>(
        `UPDATE api_keys SET key_prefix = $3, key_digest = $4, key_ciphertext = $5
         WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
        [keyId, accountId, apiKeyPrefix(key), digestApiKey(key), encryptApiKey(key, masterKeyHex)],
      );
      if (!res.rows[0]) throw keyNotFound(keyId);
      return { ...toStored(res.rows[0]), key };
    },

    /** The stored key, decrypted, with the audit record of who asked written in the same transaction. */
    async decrypt(
      accountId: string,
      keyId: string,
      audit: { actorUserId: string | null; actorApiKeyId: string | null; clientIp: string | null; requestId: string | null },
    ): Promise<string> {
      const res = await pool.query<{ key_ciphertext: Buffer }>(
        `WITH target AS (
           SELECT id, key_ciphertext FROM api_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
         ), audit AS (
           INSERT INTO api_key_decrypt_audit (api_key_id, account_id, actor_user_id, actor_api_key_id, client_ip, request_id)
           SELECT id, $2, $3, $4, $5, $6 FROM target
         )
         SELECT key_ciphertext FROM target`,
        [checkedId(keyId), accountId, audit.actorUserId, audit.actorApiKeyId, audit.clientIp, audit.requestId],
      );
      if (!res.rows[0]) throw keyNotFound(keyId);
      return decryptApiKey(res.rows[0].key_ciphertext, masterKeyHex);
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
