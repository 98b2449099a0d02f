import type pg from 'pg';

/**
 * Legacy keys: live keys no signed-in user created (`created_by_user_id` is
 * null), that is, keys the operator issued with the bootstrap tools before
 * accounts had users and dashboard sessions. Nothing records who holds them
 * or why, so the dashboard asks their owners, once, to replace them with
 * keys of their own. Revoked keys do not count.
 */
const LEGACY_NOTICE = 'legacy-keys';

export async function legacyKeyStatus(pool: pg.Pool, accountId: string): Promise<{ count: number; noticeShown: boolean }> {
  const row = (
    await pool.query<{ count: number; notice_shown: boolean }>(
      `SELECT (SELECT count(*)::int FROM api_keys
                WHERE account_id = $1 AND environment = 'live' AND created_by_user_id IS NULL AND revoked_at IS NULL) AS count,
              EXISTS (SELECT 1 FROM account_notices WHERE account_id = $1 AND notice = $2) AS notice_shown`,
      [accountId, LEGACY_NOTICE],
    )
  ).rows[0]!;
  return { count: row.count, noticeShown: row.notice_shown };
}

/** Records that the account was shown the notice; repeating it changes nothing. */
export async function markLegacyNoticeShown(pool: pg.Pool, accountId: string): Promise<void> {
  await pool.query('INSERT INTO account_notices (account_id, notice) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, LEGACY_NOTICE]);
}
