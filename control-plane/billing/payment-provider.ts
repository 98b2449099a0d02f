import Stripe from 'stripe';
import { TrawlError } from '../../common/errors.js';

/** Where the payment provider is and how to reach it (TrawlConfig.payment). */
export interface PaymentProviderConfig {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
}

export interface CheckoutRequest {
  accountId: string;
  userId: string;
  amountCents: number;
  successUrl: string;
  cancelUrl: string;
}

export interface PaymentProvider {
  /** Opens a one-off payment (mode=payment) for a deposit; answers the session id and the page to send the payer to. */
  createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }>;
}

/** The product name payers see on the provider's checkout page. */
const DEPOSIT_PRODUCT_NAME = 'Trawl credits';

/** The provider's base URL as the Stripe client takes it: scheme, host and port, no path. */
function endpointOf(baseUrl: string): { protocol: 'http' | 'https'; host: string; port: number } {
  const url = new URL(baseUrl);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || (url.pathname !== '/' && url.pathname !== '') || url.search) {
    throw new Error(`TRAWL_PAYMENT_BASE_URL must be http(s)://host[:port] without a path, got "${baseUrl}"`);
  }
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return { protocol, host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : protocol === 'https' ? 443 : 80 };
}

/**
 * A payment provider speaking Stripe's API at a configured base URL, through
 * the `stripe` client (form-encoded requests, Bearer secret key). Null when
 * the base URL or the secret key is not set: checkout is then unavailable.
 */
export function createPaymentProvider(config: PaymentProviderConfig): PaymentProvider | null {
  if (!config.baseUrl || !config.secretKey) return null;
  const stripe = new Stripe(config.secretKey, { ...endpointOf(config.baseUrl), telemetry: false, maxNetworkRetries: 1, timeout: config.timeoutMs });
  return {
    async createCheckoutSession(request) {
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.create({
          mode: 'payment',
          client_reference_id: request.accountId,
          line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: request.amountCents, product_data: { name: DEPOSIT_PRODUCT_NAME } } }],
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
          metadata: { account_id: request.accountId, user_id: request.userId },
        });
      } catch (err) {
        // The provider's own message can name the key (masked) or the request; the caller gets neither.
        const status = err instanceof Stripe.errors.StripeError ? err.statusCode : undefined;
        throw new TrawlError('UPSTREAM_ERROR', 'The payment provider did not open a checkout session; try again later', status ? { provider_status: status } : undefined);
      }
      if (!session.url) throw new TrawlError('UPSTREAM_ERROR', 'The payment provider answered a checkout session without a payment page');
      return { id: session.id, url: session.url };
    },
  };
}
