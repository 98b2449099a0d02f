import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { OAUTH_CODE_TTL_SECONDS } from '../../common/limits.js';

/** What a code was issued for, as stored. */
export interface CodeGrant {
  clientId: string;
  userId: string;
  accountId: string;
  redirectUri: string;
  scope: string;
  /** '' when the authorization named no source. */
  source: string;
  /** Base64url SHA-256 of the PKCE verifier; null without PKCE. */
  codeChallenge: string | null;
}

/** Codes are kept by digest only, so a copy of the table yields nothing to redeem. */
export function digestCode(code: string): Buffer {
  return createHash('sha256').update(code, 'utf8').digest();
}

/** The S256 challenge of a PKCE verifier (RFC 7636 4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether a verifier answers a stored challenge, compared in constant time. */
export function pkceVerifies(verifier: string, challenge: string): boolean {
  const expected = Buffer.from(challenge, 'utf8');
  const actual = Buffer.from(pkceChallenge(verifier), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Issues a single-use code: 32 random bytes (base64url), stored by digest,
 * expiring OAUTH_CODE_TTL_SECONDS after issue. Codes that expired over a
 * day ago are cleared on the way.
 */
export async function issueCode(pool: pg.Pool, grant: CodeGrant): Promise<{ code: string; expiresAt: Date }> {
  const code = randomBytes(32).toString('base64url');
  const row = await pool.query<{ expires_at: Date }>(
    `INSERT INTO oauth_codes (code_digest, client_id, user_id, account_id, redirect_uri, scope, source, code_challenge, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9)) RETURNING expires_at`,
    [digestCode(code), grant.clientId, grant.userId, grant.accountId, grant.redirectUri, grant.scope, grant.source, grant.codeChallenge, OAUTH_CODE_TTL_SECONDS],
  );
  await pool.query(`DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day'`);
  return { code, expiresAt: row.rows[0]!.expires_at };
}

/**
 * Consumes a code of this client in one statement: of any number of
 * concurrent redemptions exactly one gets the grant; an unknown, expired or
 * already used code (or another client's) gets null. A code is spent even if
 * the exchange then fails (a wrong redirect URI or verifier): the client
 * starts again at authorization.
 */
export async function consumeCode(pool: pg.Pool, code: string, clientId: string): Promise<CodeGrant | null> {
  const row = await pool.query<{
    user_id: string;
    account_id: string;
    redirect_uri: string;
    scope: string;
    source: string;
    code_challenge: string | null;
  }>(
    `UPDATE oauth_codes SET consumed_at = now()
      WHERE code_digest = $1 AND client_id = $2 AND consumed_at IS NULL AND expires_at > now()
      RETURNING user_id, account_id, redirect_uri, scope, source, code_challenge`,
    [digestCode(code), clientId],
  );
  const found = row.rows[0];
  if (!found) return null;
  return {
    clientId,
    userId: found.user_id,
    accountId: found.account_id,
    redirectUri: found.redirect_uri,
    scope: found.scope,
    source: found.source,
    codeChallenge: found.code_challenge,
  };
}
