import { IP_LIMITS } from '../../../common/limits.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentBalance, presentUsage } from './presenters.js';
import { Balance, Checkout, CheckoutRequest, PaymentEvent, PaymentEventReceipt, Usage, UsageQuery } from './schemas.js';

const READ_TIMEOUT_MS = 10_000;
/** Opening a checkout waits on the payment provider. */
const PROVIDER_TIMEOUT_MS = 30_000;

const ORGANIZATION_NOTE = 'With a session token, X-Organization-Id acts on that organization\'s account.';

/** The balance, usage, checkout and payment-provider webhook routes. */
export function billingRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const billing = deps.controlPlane.billing;
  const balanceRoute = (path: string, operationId: string, summary: string) =>
    defineRoute({
      method: 'GET',
      path,
      operationId,
      summary,
      description: `Takes an API key or a session token. ${ORGANIZATION_NOTE}`,
      tags: ['Billing'],
      auth: 'either',
      responses: { 200: { description: 'The balance, its tier and the subscription status', schema: Balance } },
      errors: { 404: 'NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)' },
      handler: async ({ ctx }) => {
        ctx.body = presentBalance(await billing.getBalance({}, callOptions(ctx, READ_TIMEOUT_MS)));
      },
    });
  return [
    balanceRoute('/api/v1/billing/balance', 'getBillingBalance', 'The account balance and its tier'),
    balanceRoute('/api/v1/usage/balance', 'getUsageBalance', 'The account balance and its tier, as the dashboards read it'),
    defineRoute({
      method: 'GET',
      path: '/api/v1/usage',
      operationId: 'getUsage',
      summary: 'Requests and spend over the last days',
      description: `Counts the account's scrape and extract requests by UTC day from its jobs, and its spend, refunds and deposits from the ledger. ${ORGANIZATION_NOTE}`,
      tags: ['Billing'],
      auth: 'either',
      request: { query: UsageQuery },
      responses: { 200: { description: 'Totals and every day of the window', schema: Usage } },
      errors: { 404: 'NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)' },
      handler: async ({ ctx, query }) => {
        ctx.body = presentUsage(await billing.getUsage({ days: query.days }, callOptions(ctx, READ_TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/billing/checkout',
      operationId: 'createCheckout',
      summary: 'Open a checkout with the payment provider for a deposit',
      description: `Send the payer to checkout_url. Once paid, the provider's webhook deposits the amount to the account (the session user's, or the organization's named in X-Organization-Id).`,
      tags: ['Billing'],
      auth: 'session',
      ipLimits: [IP_LIMITS.checkout],
      request: { body: CheckoutRequest },
      responses: { 201: { description: 'The checkout session', schema: Checkout } },
      errors: {
        404: 'NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)',
        502: 'UPSTREAM_ERROR (the payment provider refused or failed)',
        503: 'SERVICE_UNAVAILABLE (no payment provider is configured)',
      },
      handler: async ({ ctx, body }) => {
        const session = await billing.createCheckoutSession(
          { amountCents: BigInt(Math.round(body.amount_usd * 100)), successUrl: body.success_url, cancelUrl: body.cancel_url },
          callOptions(ctx, PROVIDER_TIMEOUT_MS),
        );
        ctx.status = 201;
        ctx.body = { checkout_url: session.checkoutUrl, session_id: session.sessionId };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/billing/webhook',
      operationId: 'paymentWebhook',
      summary: "The payment provider's webhook",
      description:
        'Called by the payment provider, not by clients. The Stripe-Signature header (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">) must match the exact body under the webhook secret and be at most 5 minutes old. checkout.session.completed deposits the paid amount once per session; customer.subscription.* events set the subscription status; a replayed event changes nothing.',
      tags: ['Billing'],
      auth: 'none',
      keepRawBody: true,
      request: { body: PaymentEvent },
      responses: { 200: { description: 'The event was handled (or had been)', schema: PaymentEventReceipt } },
      errors: {
        400: 'INVALID_SIGNATURE (missing, malformed, stale or not matching the body)',
        503: 'SERVICE_UNAVAILABLE (no webhook secret is configured)',
      },
      handler: async ({ ctx, rawBody }) => {
        const res = await billing.handlePaymentEvent(
          { payload: rawBody ?? new Uint8Array(), signature: ctx.get('stripe-signature') },
          callOptions(ctx, READ_TIMEOUT_MS),
        );
        ctx.body = { received: true, outcome: res.outcome };
      },
    }),
  ];
}
