import { z } from 'zod';
import type { Billing as BillingMessage } from '../../../proto/gen/trawl/v1/billing_pb.js';

/** The credit headers of a billed answer. */
export const CREDIT_HEADERS = {
  'X-Service-Credits': { description: 'Credits charged for this request', type: 'number' },
  'X-Service-Credits-Remaining': { description: 'Balance left, in credits', type: 'number' },
} as const;

export const Escalation = z
  .object({
    tier: z.string(),
    result: z.string().meta({
      description:
        '"success", "js_shell" (an HTTP tier got a page only JavaScript renders; the scrape went on to the browser), or the failure ' +
        'classification of that attempt (e.g. "blocked", "challenge_detected"). Only the successful attempt has credits.',
    }),
    credits: z.number(),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'Escalation' });

export const Billing = z
  .object({
    total_credits: z.number(),
    tier_used: z.string(),
    escalations: z.array(Escalation),
    savings: z.number().meta({ description: 'Credits saved against running this request on the browser tier (4).' }),
    add_ons: z.record(z.string(), z.number()).optional().meta({
      description: 'The add-ons charged with the successful attempt (SPEC 2.5: screenshot, generate_pdf, ocr, use_proxy, use_own_proxy), credits by name; included in total_credits.',
    }),
    optimization_suggestion: z.string().optional(),
    refunded: z.boolean().optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'Billing' });

export function presentBilling(billing: BillingMessage | undefined, failed: boolean) {
  const b = billing;
  return {
    total_credits: b?.totalCredits ?? 0,
    tier_used: b?.tierUsed ?? '',
    escalations: (b?.escalations ?? []).map((e) => ({
      tier: e.tier,
      result: e.result,
      credits: e.credits,
      duration_ms: Number(e.durationMs),
    })),
    savings: b?.savings ?? 0,
    ...(b && Object.keys(b.addOns).length > 0 ? { add_ons: { ...b.addOns } } : {}),
    ...(b?.optimizationSuggestion ? { optimization_suggestion: b.optimizationSuggestion } : {}),
    ...(failed ? { refunded: b?.refunded ?? true, reason: b?.reason ?? '' } : {}),
  };
}
