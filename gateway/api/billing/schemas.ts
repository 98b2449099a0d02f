import { z } from 'zod';
import { CHECKOUT_MAX_USD, CHECKOUT_MIN_USD, CHECKOUT_URL_MAX_CHARS, USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS } from '../../../common/limits.js';
import { HttpUrl } from '../shared/fields.js';

export const SUBSCRIPTION_STATUS = z
  .enum(['none', 'active', 'past_due', 'cancelled'])
  .meta({
    description:
      'The subscription as the payment provider last reported it. None is needed to scrape; past_due and cancelled refuse scrape and extract requests with 402 SUBSCRIPTION_INACTIVE until it is active again or the operator clears it.',
  });

export const Balance = z
  .object({
    balance_microcents: z.number().int().meta({ description: '1 USD = 1,000,000 microcents.' }),
    balance_credits: z.number().meta({ description: '1 credit = 200 microcents ($0.0002).' }),
    balance_usd: z.number(),
    tier: z
      .object({
        id: z.string().meta({ description: 'free, basic, growth, scale, high_volume or enterprise.' }),
        name: z.string(),
      })
      .meta({ description: 'The limit tier the balance (or the enterprise flag) puts the account in, effective at once.' }),
    is_enterprise: z.boolean(),
    subscription_status: SUBSCRIPTION_STATUS,
  })
  .meta({ id: 'Balance' });

const UsageTotals = {
  total_requests: z.number().int().meta({ description: 'Scrape and extract requests, refused ones included.' }),
  successful_requests: z.number().int(),
  failed_requests: z.number().int(),
  credits_used: z.number().meta({ description: 'spend_microcents in credits.' }),
  spend_microcents: z.number().int().meta({ description: 'What finished requests were charged.' }),
  refunded_microcents: z.number().int().meta({ description: 'What failed requests gave back.' }),
  deposits_microcents: z.number().int().meta({ description: 'Deposits: checkouts, bonuses and operator deposits.' }),
};

export const Usage = z
  .object({
    days: z.number().int(),
    ...UsageTotals,
    by_day: z
      .array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD, UTC.' }), ...UsageTotals }).meta({ id: 'UsageDay' }))
      .meta({ description: 'Every UTC day of the window, today included, oldest first.' }),
  })
  .meta({ id: 'Usage' });

export const UsageQuery = z
  .object({
    days: z.coerce
      .number()
      .int()
      .min(1)
      .max(USAGE_MAX_DAYS)
      .default(USAGE_DEFAULT_DAYS)
      .meta({ description: `The window: the last 1 to ${USAGE_MAX_DAYS} UTC days, today included (default ${USAGE_DEFAULT_DAYS}).` }),
  })
  .strict();

const CheckoutUrl = HttpUrl.pipe(z.string().max(CHECKOUT_URL_MAX_CHARS));

export const CheckoutRequest = z
  .object({
    amount_usd: z
      .number()
      .min(CHECKOUT_MIN_USD)
      .max(CHECKOUT_MAX_USD)
      .refine((usd) => Math.abs(usd * 100 - Math.round(usd * 100)) < 1e-6, 'must be whole cents')
      .meta({ description: `The deposit in US dollars, ${CHECKOUT_MIN_USD} to ${CHECKOUT_MAX_USD}, whole cents.` }),
    success_url: CheckoutUrl.meta({ description: `Where the payer lands after paying; at most ${CHECKOUT_URL_MAX_CHARS} characters.` }),
    cancel_url: CheckoutUrl.meta({ description: 'Where the payer lands after giving up.' }),
  })
  .strict()
  .meta({ id: 'CheckoutRequest' });

export const Checkout = z
  .object({
    checkout_url: z.string().meta({ description: "The payment provider's page to send the payer to." }),
    session_id: z.string(),
  })
  .meta({ id: 'Checkout' });

/** A payment-provider event as Stripe sends it; only the signature makes it trusted. */
export const PaymentEvent = z
  .looseObject({
    id: z.string().min(1).max(255),
    type: z.string().min(1).max(255),
    created: z.number().int().optional(),
    data: z.looseObject({ object: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: 'PaymentEvent' });

export const PaymentEventReceipt = z
  .object({
    received: z.literal(true),
    outcome: z.enum(['deposited', 'duplicate', 'subscription_updated', 'ignored']).meta({
      description: 'deposited: a paid checkout credited; duplicate: an event (or deposit) already handled; ignored: nothing to do.',
    }),
  })
  .meta({ id: 'PaymentEventReceipt' });
