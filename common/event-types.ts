/**
 * Every event the service records (SPEC 6.2) and the crawl webhook object's
 * events. A user subscription may name any of ACCOUNT_EVENTS; the crawl
 * object's events reach only the crawl's own `webhook` target.
 */
export const ACCOUNT_EVENTS = [
  'job.completed',
  'job.failed',
  'job.started',
  'batch.completed',
  'credits.low',
  'credits.exhausted',
  'crawl.completed',
  'crawl.failed',
  'batch.search.completed',
  'monitor.changed',
  'monitor.checked',
] as const;

export const CRAWL_WEBHOOK_EVENTS = ['crawl.started', 'crawl.page.completed', 'crawl.page.failed', 'crawl.completed', 'crawl.failed'] as const;

/** A crawl's `output` webhook_stream: one event per finished page, carrying the page as the status route's `results` gives it. */
export const CRAWL_OUTPUT_EVENT = 'crawl.page.result';

export type AccountEvent = (typeof ACCOUNT_EVENTS)[number];

export const JOB_EVENTS = { started: 'job.started', completed: 'job.completed', failed: 'job.failed' } as const;

/** The event a subscription test sends when none is named (SPEC 4.9). */
export const DEFAULT_TEST_EVENT: AccountEvent = 'job.completed';

export function isAccountEvent(type: string): type is AccountEvent {
  return (ACCOUNT_EVENTS as readonly string[]).includes(type);
}
