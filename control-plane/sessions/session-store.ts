import type pg from 'pg';
import { STORED_SESSION_EXPIRED_STATUS, TrawlError } from '../../common/errors.js';
import { isUuid } from '../../common/ids.js';
import { MAX_STORED_SESSIONS } from '../../common/limits.js';
import { withTransaction } from '../billing/ledger.js';
import { openText, sealText } from '../secret-box.js';

/**
 * Stored sessions (SPEC 7.3, 8.4): cookies of a logged-in visit, sealed with
 * the master key, shown only by name. A session is active, expired (its
 * expires_at has passed) or inactive (deleted; the row stays, so naming it
 * answers SESSION_INACTIVE rather than SESSION_NOT_FOUND; an expired one
 * answers SESSION_EXPIRED with status 410).
 */
export type SessionStatus = 'active' | 'expired' | 'inactive';

export interface SessionRow {
  id: string;
  name: string;
  domain: string;
  status: SessionStatus;
  cookie_names: string[];
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

const STATUS_SQL = `CASE WHEN deleted_at IS NOT NULL THEN 'inactive' WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'expired' ELSE 'active' END`;
const COLUMNS = `id, name, domain, ${STATUS_SQL} AS status, cookie_names, created_at, updated_at, expires_at, last_used_at`;

const notFound = () => new TrawlError('SESSION_NOT_FOUND', 'No such session on this account');
const unusable = (row: { status: SessionStatus; expires_at: Date | null }) =>
  row.status === 'expired'
    ? new TrawlError(
        'SESSION_EXPIRED',
        `The session's cookies expired at ${row.expires_at!.toISOString()}; refresh it with new cookies`,
        { status: row.status, expired_at: row.expires_at!.toISOString() },
        STORED_SESSION_EXPIRED_STATUS,
      )
    : new TrawlError('SESSION_INACTIVE', 'The session was deleted', { status: row.status });

export interface SessionInput {
  name: string;
  domain: string;
  cookies: Record<string, string>;
  expiresAt: Date | null;
}

/** Creates a session; the 51st live session of an account is refused with SESSION_LIMIT_REACHED. */
export function createSession(pool: pg.Pool, masterKeyHex: string, accountId: string, input: SessionInput): Promise<SessionRow> {
  return withTransaction(pool, async (client) => {
    // The account row orders concurrent creations, so the limit cannot be passed by racing.
    await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    const live = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM stored_sessions WHERE account_id = $1 AND deleted_at IS NULL', [accountId]);
    if (live.rows[0]!.n >= MAX_STORED_SESSIONS) {
      throw new TrawlError('SESSION_LIMIT_REACHED', `An account keeps at most ${MAX_STORED_SESSIONS} sessions; delete one first`, { limit: MAX_STORED_SESSIONS });
    }
    const res = await client.query<SessionRow>(
      `INSERT INTO stored_sessions (account_id, name, domain, cookies_sealed, cookie_names, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [accountId, input.name, input.domain, sealText(JSON.stringify(input.cookies), masterKeyHex), Object.keys(input.cookies), input.expiresAt],
    );
    return res.rows[0]!;
  });
}

/** The account's sessions, newest first: one status, or active and expired ones when none is named. */
export async function listSessions(pool: pg.Pool, accountId: string, status: SessionStatus | ''): Promise<SessionRow[]> {
  const res = await pool.query<SessionRow>(
    `SELECT * FROM (SELECT ${COLUMNS} FROM stored_sessions WHERE account_id = $1) s
     WHERE ($2 = '' AND status <> 'inactive') OR status = $2 ORDER BY created_at DESC, id`,
    [accountId, status],
  );
  return res.rows;
}

export async function getSession(pool: pg.Pool, accountId: string, sessionId: string): Promise<SessionRow> {
  if (!isUuid(sessionId)) throw notFound();
  const res = await pool.query<SessionRow>(`SELECT ${COLUMNS} FROM stored_sessions WHERE id = $1 AND account_id = $2`, [sessionId, accountId]);
  if (!res.rows[0]) throw notFound();
  return res.rows[0];
}

/** New cookies and, or, a new expiry; a deleted session cannot come back. */
export async function refreshSession(
  pool: pg.Pool,
  masterKeyHex: string,
  accountId: string,
  sessionId: string,
  input: { cookies: Record<string, string> | null; expiresAt: Date | null | undefined },
): Promise<SessionRow> {
  const current = await getSession(pool, accountId, sessionId);
  if (current.status === 'inactive') throw unusable(current);
  const cookies = input.cookies;
  const res = await pool.query<SessionRow>(
    `UPDATE stored_sessions SET
       cookies_sealed = coalesce($3, cookies_sealed), cookie_names = coalesce($4, cookie_names),
       -- New cookies for a session whose expiry has passed, with no expiry of their own, make it active again without one.
       expires_at = CASE WHEN $5 THEN $6::timestamptz WHEN $3::bytea IS NOT NULL AND expires_at <= now() THEN NULL ELSE expires_at END,
       updated_at = now()
     WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [
      sessionId,
      accountId,
      cookies ? sealText(JSON.stringify(cookies), masterKeyHex) : null,
      cookies ? Object.keys(cookies) : null,
      input.expiresAt !== undefined,
      input.expiresAt ?? null,
    ],
  );
  if (!res.rows[0]) throw unusable({ status: 'inactive', expires_at: null });
  return res.rows[0];
}

export async function deleteSession(pool: pg.Pool, accountId: string, sessionId: string): Promise<void> {
  const current = await getSession(pool, accountId, sessionId);
  if (current.status === 'inactive') throw unusable(current);
  await pool.query('UPDATE stored_sessions SET deleted_at = now(), updated_at = now() WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL', [
    sessionId,
    accountId,
  ]);
}

/** Whether `host` is the session's domain or one of its subdomains. */
export function hostInDomain(host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const d = domain.toLowerCase().replace(/\.$/, '');
  return h === d || h.endsWith(`.${d}`);
}

/**
 * The cookies a scrape of `url` sends for advanced.session_id, checked as
 * SPEC 7.3 says: another account's or an unknown session is
 * SESSION_NOT_FOUND, a deleted one SESSION_INACTIVE, an expired one
 * SESSION_EXPIRED (410), another
 * site SESSION_DOMAIN_MISMATCH. Marks the session used.
 */
export async function cookiesForScrape(pool: pg.Pool | pg.PoolClient, masterKeyHex: string, accountId: string, sessionId: string, url: string): Promise<Record<string, string>> {
  if (!isUuid(sessionId)) throw notFound();
  const res = await pool.query<{ domain: string; status: SessionStatus; expires_at: Date | null; cookies_sealed: Buffer }>(
    `UPDATE stored_sessions SET last_used_at = CASE WHEN ${STATUS_SQL} = 'active' THEN now() ELSE last_used_at END
     WHERE id = $1 AND account_id = $2 RETURNING domain, ${STATUS_SQL} AS status, expires_at, cookies_sealed`,
    [sessionId, accountId],
  );
  const row = res.rows[0];
  if (!row) throw notFound();
  if (row.status !== 'active') throw unusable(row);
  const host = new URL(url).hostname;
  if (!hostInDomain(host, row.domain)) {
    throw new TrawlError('SESSION_DOMAIN_MISMATCH', `The session is for ${row.domain}; ${host} is another site`, { session_domain: row.domain, url_host: host });
  }
  return JSON.parse(openText(row.cookies_sealed, masterKeyHex)) as Record<string, string>;
}
