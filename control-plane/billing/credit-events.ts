import { MICROCENTS_PER_CREDIT, TIER_PRICES } from '../../common/pricing.js';
import { recordEventsCte } from '../events/record-event.js';

/** Account events about the balance (SPEC 6.2), as recorded in event_outbox. */
export const CREDIT_EVENTS = { low: 'credits.low', exhausted: 'credits.exhausted' } as const;

/** Below the cheapest request the balance can pay for nothing: the account has run out. */
export const EXHAUSTED_BELOW_MICROCENTS = Math.min(...Object.values(TIER_PRICES));

/**
 * The common table expression that records a credits event (recordEventsCte)
 * when a ledger entry takes the balance from at or above a threshold to
 * below it: credits.low under the configured threshold (billing_settings),
 * credits.exhausted under the cheapest request's price. It reads the
 * `ledger_account` (balance before) and `ledger_entry` (balance after) of
 * ledgerEntryCtes, so the event is written by the same statement as the
 * entry, or not at all. The account row lock held by that statement orders
 * entries per account, so each crossing is seen by exactly one of them.
 */
export const CREDIT_EVENTS_CTE = recordEventsCte(
  'ledger_credit_event',
  `(SELECT e.account_id, t.type, NULL::jsonb AS request_webhook,
              jsonb_build_object('account_id', e.account_id, 'balance_microcents', e.balance_after_microcents,
                                 'balance_credits', (e.balance_after_microcents / ${MICROCENTS_PER_CREDIT}.0)::float8,
                                 'threshold_credits', (t.threshold / ${MICROCENTS_PER_CREDIT}.0)::float8,
                                 'reference', a.reference) AS payload
       FROM ledger_entry e JOIN ledger_account a ON a.id = e.account_id,
            (VALUES ('${CREDIT_EVENTS.low}', (SELECT credits_low_threshold_microcents FROM billing_settings)),
                    ('${CREDIT_EVENTS.exhausted}', ${EXHAUSTED_BELOW_MICROCENTS}::bigint)) AS t(type, threshold)
       WHERE a.balance_microcents >= t.threshold AND e.balance_after_microcents < t.threshold) AS credit_event`,
);
