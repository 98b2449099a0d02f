import { createHmac, timingSafeEqual } from 'node:crypto';
import { TrawlError } from '../../common/errors.js';
import { PAYMENT_WEBHOOK_TOLERANCE_SECONDS } from '../../common/limits.js';

function refused(reason: string, message: string): TrawlError {
  return new TrawlError('INVALID_SIGNATURE', message, { reason });
}

/**
 * Checks a payment-provider webhook's `Stripe-Signature` header
 * (`t=<unix seconds>,v1=<hex>[,v1=<hex>...]`): one v1 must be the hex
 * HMAC-SHA256 of `<t>.<exact body bytes>` under the webhook secret, compared
 * in constant time, and t must lie within the tolerance of now (either way),
 * so a captured delivery cannot be replayed later. Throws INVALID_SIGNATURE.
 */
export function verifyPaymentSignature(
  payload: Uint8Array,
  header: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = PAYMENT_WEBHOOK_TOLERANCE_SECONDS,
): void {
  if (!header) throw refused('missing', 'The Stripe-Signature header is missing');
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null || signatures.length === 0) {
    throw refused('malformed', 'The Stripe-Signature header needs t=<unix seconds> and v1=<hex HMAC-SHA256>');
  }
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw refused('stale', `The signature timestamp is more than ${toleranceSeconds} seconds from now`);
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest();
  if (!signatures.some((candidate) => timingSafeEqual(candidate, expected))) {
    throw refused('mismatch', 'No signature in the Stripe-Signature header matches the body');
  }
}
