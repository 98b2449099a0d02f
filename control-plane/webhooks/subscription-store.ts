import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { WEBHOOKS_PER_USER } from '../../common/limits.js';
import { withTransaction } from '../billing/ledger.js';

export interface SubscriptionRecord {
  id: string;
  name: string;
  url: string;
  events: string[];
  is_active: boolean;
  failure_count: number;
  /** The signing secret, sealed (secret-box.ts sealText). */
  secret_sealed: Buffer;
  created_at: Date;
  last_success_at: Date | null;
}

const COLUMNS = 'id, name, url, events, is_active, failure_count, secret_sealed, created_at, last_success_at';

export const webhookNotFound = () => new TrawlError('NOT_FOUND', 'No such webhook');

/**
 * Records a subscription for the user, at most WEBHOOKS_PER_USER of them
 * (counted under a lock on the user, so two creations at once cannot pass
 * the limit together), one per URL.
 */
export async function insertSubscription(
  pool: pg.Pool,
  input: { userId: string; name: string; url: string; events: string[]; secretSealed: Buffer },
): Promise<SubscriptionRecord> {
  return withTransaction(pool, async (client) => {
    await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [input.userId]);
    const existing = await client.query<{ n: string; same_url: boolean }>(
      'SELECT count(*) AS n, coalesce(bool_or(url = $2), false) AS same_url FROM webhook_subscriptions WHERE user_id = $1',
      [input.userId, input.url],
    );
    const { n, same_url } = existing.rows[0]!;
    if (same_url) throw new TrawlError('WEBHOOK_URL_EXISTS', 'A webhook with this URL exists already', { url: input.url });
    if (Number(n) >= WEBHOOKS_PER_USER) {
      throw new TrawlError('WEBHOOK_LIMIT_REACHED', `A user can have at most ${WEBHOOKS_PER_USER} webhooks`, { limit: WEBHOOKS_PER_USER });
    }
    const res = await client.query<SubscriptionRecord>(
      `INSERT INTO webhook_subscriptions (user_id, name, url, events, secret_sealed) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [input.userId, input.name, input.url, input.events, input.secretSealed],
    );
    return res.rows[0]!;
  });
}

export async function listSubscriptions(pool: pg.Pool, userId: string, includeInactive: boolean): Promise<SubscriptionRecord[]> {
  const res = await pool.query<SubscriptionRecord>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE user_id = $1 AND (is_active OR $2) ORDER BY created_at, id`,
    [userId, includeInactive],
  );
  return res.rows;
}

/** The user's subscription; another user's answers NOT_FOUND like a missing one. */
export async function loadSubscription(pool: pg.Pool, userId: string, id: string): Promise<SubscriptionRecord> {
  const res = await pool.query<SubscriptionRecord>(`SELECT ${COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND user_id = $2`, [id, userId]);
  if (!res.rows[0]) throw webhookNotFound();
  return res.rows[0];
}

export async function rotateSubscriptionSecret(pool: pg.Pool, userId: string, id: string, secretSealed: Buffer): Promise<SubscriptionRecord> {
  const res = await pool.query<SubscriptionRecord>(
    `UPDATE webhook_subscriptions SET secret_sealed = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
    [id, userId, secretSealed],
  );
  if (!res.rows[0]) throw webhookNotFound();
  return res.rows[0];
}

/** Makes a subscription active again, its count of failures in a row back at zero. */
export async function enableSubscription(pool: pg.Pool, userId: string, id: string): Promise<SubscriptionRecord> {
  const res = await pool.query<SubscriptionRecord>(
    `UPDATE webhook_subscriptions SET is_active = true, failure_count = 0, disabled_at = NULL WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
    [id, userId],
  );
  if (!res.rows[0]) throw webhookNotFound();
  return res.rows[0];
}

/** Removes a subscription and its delivery history. */
export async function deleteSubscription(pool: pg.Pool, userId: string, id: string): Promise<void> {
  const res = await pool.query('DELETE FROM webhook_subscriptions WHERE id = $1 AND user_id = $2', [id, userId]);
  if (res.rowCount === 0) throw webhookNotFound();
}

export interface DeliveryRecord {
  id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  max_attempts: number;
  response_status_code: number | null;
  response_time_ms: number | null;
  error_message: string | null;
  created_at: Date;
}

/** A subscription's deliveries, newest first, with the total matching the filter. */
export async function listDeliveries(
  pool: pg.Pool,
  subscriptionId: string,
  opts: { limit: number; status: string | null },
): Promise<{ deliveries: DeliveryRecord[]; total: number }> {
  const res = await pool.query<DeliveryRecord & { total: string }>(
    `SELECT id, event_type, status, attempt_count, max_attempts, response_status_code, response_time_ms, error_message, created_at,
            count(*) OVER () AS total
     FROM webhook_deliveries WHERE subscription_id = $1 AND ($2::text IS NULL OR status = $2)
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [subscriptionId, opts.status, opts.limit],
  );
  // No offset: an empty page means nothing matches.
  return { deliveries: res.rows, total: Number(res.rows[0]?.total ?? 0) };
}
