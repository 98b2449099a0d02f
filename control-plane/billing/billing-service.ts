import type { DescMethod } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { USAGE_MAX_DAYS } from '../../common/limits.js';
import { BillingService } from '../../proto/gen/trawl/v1/account_billing_pb.js';
import { callerOf, sessionCallerOf, type CallAuth } from '../accounts/caller.js';
import { loadBalance } from './balance.js';
import { openCheckout } from './checkout.js';
import { handlePaymentEvent } from './payment-events.js';
import type { PaymentProvider } from './payment-provider.js';
import { loadUsage, type UsageTotals } from './usage.js';

export interface BillingServiceDeps {
  pool: pg.Pool;
  /** Null when no payment provider is configured: checkout answers SERVICE_UNAVAILABLE. */
  paymentProvider: PaymentProvider | null;
  /** Empty when not configured: the webhook answers SERVICE_UNAVAILABLE. */
  paymentWebhookSecret: string;
  /** Settles once the rate-limit tiers reflect the balance changes committed so far (Limits.tiersCaughtUp). */
  tiersCaughtUp(): Promise<void>;
}

const m = BillingService.method;

/** The credential each method takes (methodAuth in control-plane/main.ts). */
export const BILLING_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = [
  [m.getBalance, 'either'],
  [m.getUsage, 'either'],
  [m.createCheckoutSession, 'session'],
  [m.handlePaymentEvent, 'none'],
];

const totals = (t: UsageTotals) => ({
  totalRequests: BigInt(t.totalRequests),
  successfulRequests: BigInt(t.successfulRequests),
  failedRequests: BigInt(t.failedRequests),
  spendMicrocents: BigInt(t.spendMicrocents),
  refundedMicrocents: BigInt(t.refundedMicrocents),
  depositsMicrocents: BigInt(t.depositsMicrocents),
});

export function createBillingService(deps: BillingServiceDeps): ServiceImpl<typeof BillingService> {
  return {
    async getBalance(_req, ctx) {
      const balance = await loadBalance(deps.pool, callerOf(ctx).accountId);
      return {
        balanceMicrocents: BigInt(balance.balanceMicrocents),
        tierId: balance.tier.id,
        tierName: balance.tier.name,
        isEnterprise: balance.isEnterprise,
        subscriptionStatus: balance.subscriptionStatus,
      };
    },

    async getUsage(req, ctx) {
      if (!Number.isInteger(req.days) || req.days < 1 || req.days > USAGE_MAX_DAYS) {
        throw new TrawlError('VALIDATION_ERROR', `days: must be 1 to ${USAGE_MAX_DAYS}`);
      }
      const usage = await loadUsage(deps.pool, callerOf(ctx).accountId, req.days);
      return { days: usage.days, totals: totals(usage), byDay: usage.byDay.map((day) => ({ date: day.date, totals: totals(day) })) };
    },

    async createCheckoutSession(req, ctx) {
      const caller = sessionCallerOf(ctx);
      return openCheckout(deps.pool, deps.paymentProvider, {
        accountId: caller.accountId,
        userId: caller.userId,
        amountCents: Number(req.amountCents),
        successUrl: req.successUrl,
        cancelUrl: req.cancelUrl,
      });
    },

    async handlePaymentEvent(req) {
      const outcome = await handlePaymentEvent(deps.pool, deps.paymentWebhookSecret, req.payload, req.signature);
      // The tier follows the balance immediately (SPEC 8.1): the account's next call runs at the tier the deposit reached.
      if (outcome === 'deposited') await deps.tiersCaughtUp();
      return { outcome };
    },
  };
}
