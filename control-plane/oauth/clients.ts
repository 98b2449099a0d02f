import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import type { OAuthClientConfig } from '../../common/config.js';
import { OAUTH_CLIENT_ID_PATTERN } from '../../common/limits.js';
import { parseAllowlistEntry } from './redirect-policy.js';

export interface OAuthClient {
  clientId: string;
  name: string;
  /** This client's own allow-list entries (redirect-policy.ts). */
  redirectUris: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

interface ClientRow {
  client_id: string;
  name: string;
  redirect_uris: string[];
  created_at: Date;
  revoked_at: Date | null;
}

const CLIENT_COLUMNS = 'client_id, name, redirect_uris, created_at, revoked_at';

const fromRow = (row: ClientRow): OAuthClient => ({
  clientId: row.client_id,
  name: row.name,
  redirectUris: row.redirect_uris,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/**
 * Secrets are at least 32 characters (generated ones: 32 random bytes), so a
 * plain SHA-256 digest is enough to keep them: there is nothing to guess
 * that a slow hash would protect, and the token endpoint stays cheap.
 */
export function digestClientSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** A new client secret: 32 random bytes, base64url (43 characters). */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A new client id: `trawl_` and 16 random hex characters. */
export function generateClientId(): string {
  return `trawl_${randomBytes(8).toString('hex')}`;
}

/** Refuses a client id or allow-list entry an operator mistyped, naming it. */
export function checkRegistration(clientId: string, redirectUris: readonly string[]): void {
  if (!OAUTH_CLIENT_ID_PATTERN.test(clientId)) throw new Error(`client id "${clientId}" must be 1 to 64 of A-Z a-z 0-9 . _ -`);
  for (const entry of redirectUris) parseAllowlistEntry(entry);
}

/**
 * Registers a client, or replaces the secret, name and redirect entries of
 * one with the same id (and brings it back if it was removed).
 */
export async function upsertClient(
  pool: pg.Pool,
  input: { clientId: string; secret: string; name: string; redirectUris: readonly string[] },
): Promise<OAuthClient> {
  checkRegistration(input.clientId, input.redirectUris);
  const row = await pool.query<ClientRow>(
    `INSERT INTO oauth_clients (client_id, secret_digest, name, redirect_uris) VALUES ($1, $2, $3, $4)
     ON CONFLICT (client_id) DO UPDATE
       SET secret_digest = EXCLUDED.secret_digest, name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris, revoked_at = NULL
     RETURNING ${CLIENT_COLUMNS}`,
    [input.clientId, digestClientSecret(input.secret), input.name, input.redirectUris],
  );
  return fromRow(row.rows[0]!);
}

/** Registers the clients of TRAWL_OAUTH_CLIENTS (at control-plane start). */
export async function loadConfiguredClients(pool: pg.Pool, clients: readonly OAuthClientConfig[]): Promise<void> {
  for (const c of clients) {
    await upsertClient(pool, { clientId: c.client_id, secret: c.client_secret, name: c.name, redirectUris: c.redirect_uris });
  }
}

export async function listClients(pool: pg.Pool, opts: { includeRemoved?: boolean } = {}): Promise<OAuthClient[]> {
  const rows = await pool.query<ClientRow>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE $1 OR revoked_at IS NULL ORDER BY created_at, client_id`,
    [opts.includeRemoved ?? false],
  );
  return rows.rows.map(fromRow);
}

/** Removes a client: it can no longer authorize or exchange codes; keys it obtained stay. False when no such client is registered. */
export async function removeClient(pool: pg.Pool, clientId: string): Promise<boolean> {
  const res = await pool.query('UPDATE oauth_clients SET revoked_at = now() WHERE client_id = $1 AND revoked_at IS NULL', [clientId]);
  return res.rowCount === 1;
}

/** A registered client that was not removed. */
export async function findClient(pool: pg.Pool, clientId: string): Promise<OAuthClient | null> {
  const row = await pool.query<ClientRow>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE client_id = $1 AND revoked_at IS NULL`,
    [clientId],
  );
  return row.rows[0] ? fromRow(row.rows[0]) : null;
}

/** Whether any client is registered: without one, the OAuth routes answer OAUTH_NOT_CONFIGURED. */
export async function anyClientRegistered(pool: pg.Pool): Promise<boolean> {
  const row = await pool.query<{ found: boolean }>('SELECT EXISTS (SELECT 1 FROM oauth_clients WHERE revoked_at IS NULL) AS found');
  return row.rows[0]!.found;
}

const NO_CLIENT_DIGEST = digestClientSecret(randomBytes(32).toString('hex'));

/**
 * The client a presented id and secret belong to, or null. The digests are
 * compared in constant time, and an unknown id is compared against a digest
 * of no one's secret, so the answer time tells neither.
 */
export async function authenticateClient(pool: pg.Pool, clientId: string, secret: string): Promise<OAuthClient | null> {
  const row = await pool.query<ClientRow & { secret_digest: Buffer }>(
    `SELECT ${CLIENT_COLUMNS}, secret_digest FROM oauth_clients WHERE client_id = $1 AND revoked_at IS NULL`,
    [clientId],
  );
  const found = row.rows[0];
  const matches = timingSafeEqual(digestClientSecret(secret), found?.secret_digest ?? NO_CLIENT_DIGEST);
  return found && matches ? fromRow(found) : null;
}
