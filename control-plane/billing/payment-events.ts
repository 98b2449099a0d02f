import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { MICROCENTS_PER_USD_CENT } from '../../common/pricing.js';
import { applyLedgerEntry, withTransaction } from './ledger.js';
import { verifyPaymentSignature } from './payment-signature.js';
import { applyProviderSubscriptionStatus, subscriptionStatusOf, type SubscriptionStatus } from './subscription.js';
import { isUuid } from '../../common/ids.js';

export type PaymentEventOutcome = 'deposited' | 'duplicate' | 'subscription_updated' | 'ignored';

/** The parts of a provider event (Stripe's shape) read here. */
interface ProviderEvent {
  id: string;
  type: string;
  created: number;
  data: { object: Record<string, unknown> };
}

/** The ledger reference of a checkout session's deposit. */
export function checkoutReference(sessionId: string): string {
  return `checkout:${sessionId}`;
}

function parseEvent(payload: Uint8Array): ProviderEvent {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    throw new TrawlError('VALIDATION_ERROR', 'The event is not JSON');
  }
  const event = value as Partial<ProviderEvent> | null;
  const object = event?.data?.object;
  if (typeof event?.id !== 'string' || !event.id || typeof event.type !== 'string' || typeof object !== 'object' || object === null) {
    throw new TrawlError('VALIDATION_ERROR', 'The event needs id, type and data.object');
  }
  return { id: event.id, type: event.type, created: typeof event.created === 'number' ? event.created : Math.floor(Date.now() / 1000), data: { object: object as Record<string, unknown> } };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/**
 * A paid checkout session deposits what was paid (amount_total, US cents) to
 * the account that opened it, once: sessions this service did not open, other
 * currencies and payments still pending change nothing.
 */
async function completeCheckout(client: pg.PoolClient, session: Record<string, unknown>): Promise<{ outcome: PaymentEventOutcome; accountId: string | null }> {
  const id = text(session['id']);
  const amountCents = session['amount_total'];
  if (!id || session['payment_status'] !== 'paid' || session['currency'] !== 'usd' || !Number.isSafeInteger(amountCents) || (amountCents as number) <= 0) {
    return { outcome: 'ignored', accountId: null };
  }
  const opened = (
    await client.query<{ account_id: string }>('SELECT account_id FROM checkout_sessions WHERE id = $1 FOR UPDATE', [id])
  ).rows[0];
  if (!opened) return { outcome: 'ignored', accountId: null };
  const entry = await applyLedgerEntry(client, {
    accountId: opened.account_id,
    kind: 'deposit',
    amountMicrocents: (amountCents as number) * MICROCENTS_PER_USD_CENT,
    reference: checkoutReference(id),
  });
  await client.query(`UPDATE checkout_sessions SET status = 'completed', completed_at = coalesce(completed_at, now()) WHERE id = $1`, [id]);
  const customer = text(session['customer']);
  if (customer) {
    await client.query(
      `UPDATE accounts SET payment_customer_id = $2
        WHERE id = $1 AND payment_customer_id IS NULL AND NOT EXISTS (SELECT 1 FROM accounts WHERE payment_customer_id = $2)`,
      [opened.account_id, customer],
    );
  }
  return { outcome: entry.applied ? 'deposited' : 'duplicate', accountId: opened.account_id };
}

/** The account a subscription belongs to: its metadata's account_id, else the account known by its customer. */
async function subscriptionAccount(client: pg.PoolClient, subscription: Record<string, unknown>): Promise<string | null> {
  const metadata = subscription['metadata'];
  const named = metadata && typeof metadata === 'object' ? text((metadata as Record<string, unknown>)['account_id']) : null;
  const customer = text(subscription['customer']);
  const row = (
    await client.query<{ id: string }>(
      'SELECT id FROM accounts WHERE id = $1::uuid OR (payment_customer_id IS NOT NULL AND payment_customer_id = $2) ORDER BY (id = $1::uuid) DESC NULLS LAST LIMIT 1',
      [named && isUuid(named) ? named : null, customer],
    )
  ).rows[0];
  return row?.id ?? null;
}

async function updateSubscription(client: pg.PoolClient, event: ProviderEvent): Promise<{ outcome: PaymentEventOutcome; accountId: string | null }> {
  const subscription = event.data.object;
  const status: SubscriptionStatus | null =
    event.type === 'customer.subscription.deleted' ? 'cancelled' : subscriptionStatusOf(text(subscription['status']) ?? '');
  const accountId = status ? await subscriptionAccount(client, subscription) : null;
  if (!status || !accountId) return { outcome: 'ignored', accountId };
  const changed = await applyProviderSubscriptionStatus(client, accountId, status, new Date(event.created * 1000));
  return { outcome: changed ? 'subscription_updated' : 'ignored', accountId };
}

/**
 * Handles one payment-provider webhook delivery: the signature over the exact
 * body bytes first, then the event, once per event id (a replayed delivery
 * answers `duplicate`), all in one transaction.
 */
export async function handlePaymentEvent(pool: pg.Pool, webhookSecret: string, payload: Uint8Array, signature: string): Promise<PaymentEventOutcome> {
  if (!webhookSecret) throw new TrawlError('SERVICE_UNAVAILABLE', 'Payments are not configured on this service');
  verifyPaymentSignature(payload, signature, webhookSecret);
  const event = parseEvent(payload);
  return withTransaction(pool, async (client) => {
    const fresh = await client.query('INSERT INTO payment_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id', [event.id, event.type]);
    if (fresh.rowCount === 0) return 'duplicate';
    let handled: { outcome: PaymentEventOutcome; accountId: string | null };
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        handled = await completeCheckout(client, event.data.object);
        break;
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        handled = await updateSubscription(client, event);
        break;
      default:
        handled = { outcome: 'ignored', accountId: null };
    }
    if (handled.accountId) await client.query('UPDATE payment_events SET account_id = $2 WHERE id = $1', [event.id, handled.accountId]);
    return handled.outcome;
  });
}
