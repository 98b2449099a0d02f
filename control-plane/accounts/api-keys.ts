import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { applyLedgerEntry, withTransaction } from '../billing/ledger.js';
import { openText, sealText } from '../secret-box.js';
import { isWellFormedApiKey } from '../../common/api-key-format.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PREFIX_LENGTH = 12;

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  keyPrefix: string;
  scopes: string[];
  environment: 'live' | 'test';
  createdAt: string;
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  scopes: string[];
  environment: 'live' | 'test';
  /** The role of the user whose personal account holds the key; keys of organization accounts act as users. */
  role: 'user' | 'admin';
}

export function generateApiKey(environment: 'live' | 'test'): string {
  // Rejection sampling keeps every character equally likely.
  let body = '';
  while (body.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < 32) body += ALPHABET[byte % 62];
    }
  }
  return `sk_${environment}_${body}`;
}

/** The part of a key shown in listings (`sk_live_AbCd`). */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

export function digestApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function encryptApiKey(key: string, masterKeyHex: string): Buffer {
  return sealText(key, masterKeyHex);
}

export function decryptApiKey(blob: Buffer, masterKeyHex: string): string {
  return openText(blob, masterKeyHex);
}

export async function createAccount(
  pool: pg.Pool,
  input: { name: string; email?: string; initialMicrocents: number },
): Promise<{ accountId: string }> {
  return withTransaction(pool, async (client) => {
    const row = await client.query<{ id: string }>('INSERT INTO accounts (name, email) VALUES ($1, $2) RETURNING id', [
      input.name,
      input.email ?? null,
    ]);
    const accountId = row.rows[0]!.id;
    if (input.initialMicrocents > 0) {
      await applyLedgerEntry(client, {
        accountId,
        kind: 'deposit',
        amountMicrocents: input.initialMicrocents,
        reference: `signup:${accountId}`,
      });
    }
    return { accountId };
  });
}

export async function createApiKey(
  pool: pg.Pool,
  input: { accountId: string; name: string; environment: 'live' | 'test'; masterKeyHex: string; scopes?: string[]; createdByUserId?: string | null },
): Promise<ApiKeyRecord & { key: string }> {
  const key = generateApiKey(input.environment);
  const id = randomUUID();
  const scopes = input.scopes ?? ['scrape'];
  const row = await pool.query<{ created_at: Date }>(
    `INSERT INTO api_keys (id, account_id, name, key_prefix, key_digest, key_ciphertext, scopes, environment, created_by_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING created_at`,
    [
      id, input.accountId, input.name, apiKeyPrefix(key), digestApiKey(key), encryptApiKey(key, input.masterKeyHex), scopes,
      input.environment, input.createdByUserId ?? null,
    ],
  );
  return {
    id,
    key,
    accountId: input.accountId,
    name: input.name,
    keyPrefix: apiKeyPrefix(key),
    scopes,
    environment: input.environment,
    createdAt: row.rows[0]!.created_at.toISOString(),
  };
}

/** Looks a presented key up by digest; revoked and malformed keys are not found. */
export async function findApiKey(pool: pg.Pool, key: string): Promise<AuthenticatedKey | null> {
  if (!isWellFormedApiKey(key)) return null;
  const row = await pool.query<{ id: string; account_id: string; scopes: string[]; environment: 'live' | 'test'; role: 'user' | 'admin' | null }>(
    `SELECT k.id, k.account_id, k.scopes, k.environment, u.role
       FROM api_keys k LEFT JOIN users u ON u.account_id = k.account_id
      WHERE k.key_digest = $1 AND k.revoked_at IS NULL`,
    [digestApiKey(key)],
  );
  const found = row.rows[0];
  return found
    ? { keyId: found.id, accountId: found.account_id, scopes: found.scopes, environment: found.environment, role: found.role ?? 'user' }
    : null;
}
