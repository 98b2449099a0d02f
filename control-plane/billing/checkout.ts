import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { CHECKOUT_MAX_USD, CHECKOUT_MIN_USD } from '../../common/limits.js';
import { MICROCENTS_PER_USD_CENT } from '../../common/pricing.js';
import type { PaymentProvider } from './payment-provider.js';

export interface CheckoutInput {
  accountId: string;
  userId: string;
  amountCents: number;
  successUrl: string;
  cancelUrl: string;
}

function refuseUrl(field: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TrawlError('VALIDATION_ERROR', `${field}: must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TrawlError('VALIDATION_ERROR', `${field}: must be an http or https URL`);
}

/**
 * Opens a checkout session for a deposit to the caller's account and records
 * it, so the provider's completion event can be matched to the account and
 * deposited once. SERVICE_UNAVAILABLE when no provider is configured.
 */
export async function openCheckout(db: pg.Pool, provider: PaymentProvider | null, input: CheckoutInput): Promise<{ sessionId: string; checkoutUrl: string }> {
  if (!provider) throw new TrawlError('SERVICE_UNAVAILABLE', 'Payments are not configured on this service');
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < CHECKOUT_MIN_USD * 100 || input.amountCents > CHECKOUT_MAX_USD * 100) {
    throw new TrawlError('VALIDATION_ERROR', `amount_usd: must be ${CHECKOUT_MIN_USD} to ${CHECKOUT_MAX_USD} US dollars`);
  }
  refuseUrl('success_url', input.successUrl);
  refuseUrl('cancel_url', input.cancelUrl);
  const session = await provider.createCheckoutSession(input);
  await db.query('INSERT INTO checkout_sessions (id, account_id, user_id, amount_microcents) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
    session.id,
    input.accountId,
    input.userId,
    input.amountCents * MICROCENTS_PER_USD_CENT,
  ]);
  return { sessionId: session.id, checkoutUrl: session.url };
}
