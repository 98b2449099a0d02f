import { toCredits } from '../../../common/pricing.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { SCRAPE_REQUEST_LIMIT_BYTES } from '../../../common/limits.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { DISPATCH_LIMIT_HEADERS } from '../../../common/rate-limit-headers.js';
import { CREDIT_HEADERS } from '../shared/billing.js';
import { KEY_BUDGET_ERROR } from '../keys/errors.js';
import { runScrape } from './run-scrape.js';
import { EstimateResult, ScrapeAccepted, ScrapeError, ScrapeRequest, ScrapeResult } from './schemas.js';
import { toProto } from './to-proto.js';

/** What a scrape can fail with beyond what every route can (document.ts derives those); the deprecated routes share it. */
export const SCRAPE_ERRORS: Record<number, string> = {
  400: 'EXCEEDS_COST_LIMIT, URL_NOT_ALLOWED, SESSION_DOMAIN_MISMATCH (advanced.session_id is for another site) or SESSION_COOKIES_CONFLICT',
  401: 'REQUIRES_AUTH: the target answered 401 or a sign-in form stood in for the page (login wall; refunded)',
  402: `INSUFFICIENT_CREDITS (details: required_credits, available_credits, estimated_tier, job_id), SUBSCRIPTION_INACTIVE (the account's subscription is past due or cancelled; cached answers too), PAYWALL_DETECTED (the target answered 402 or a subscription wall held back the content; refunded) or ${KEY_BUDGET_ERROR}`,
  403: 'BLOCKED_BY_ANTIBOT, or CHALLENGE_DETECTED (a bot challenge on every tier, or a captcha tier 5 could not pass; refunded)',
  404: "SESSION_NOT_FOUND (advanced.session_id unknown, or another account's)",
  410: "SESSION_INACTIVE (the stored session was deleted) or SESSION_EXPIRED (the stored session's cookies expired)",
  413: 'CONTENT_TOO_LARGE (page over 10 MB, refunded)',
  415: 'UNSUPPORTED_CONTENT_TYPE (refunded)',
  422: 'TARGET_NOT_FOUND, EXTRACTION_FAILED or SCRAPE_FAILED (refunded)',
  429: "rate_limit_exceeded: the account's jobs in flight or dispatches per minute are at its tier's entitlement (body: detail, docs_url; SPEC 7.4)",
  503: 'NETWORK_ERROR or TARGET_UNAVAILABLE (refunded), or SERVICE_UNAVAILABLE',
  504: 'TIMEOUT (refunded)',
};

/** Headers of a scrape's answers, the deprecated routes' included: what it cost, and the account's dispatch limits. */
export const SCRAPE_RESULT_HEADERS = { ...CREDIT_HEADERS, ...DISPATCH_LIMIT_HEADERS };

export function scrapeRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/scrape',
      operationId: 'scrape',
      summary: 'Scrape one URL',
      description:
        'Fetches a page through the fetch tiers and converts it to the requested formats. With sync=true (default) the call ' +
        'holds until the job ends or the 85-second safe deadline passes; past it, or when a slow tier is predicted, it answers ' +
        '202 with a poll URL. With sync=false it always answers 202.',
      tags: ['Scrape'],
      auth: 'api_key',
      bodyLimitBytes: SCRAPE_REQUEST_LIMIT_BYTES,
      request: { body: ScrapeRequest },
      responses: {
        200: { description: 'The scrape result', schema: ScrapeResult, headers: SCRAPE_RESULT_HEADERS },
        202: { description: 'Accepted; poll poll_url', schema: ScrapeAccepted, headers: DISPATCH_LIMIT_HEADERS },
      },
      errors: SCRAPE_ERRORS,
      errorSchema: ScrapeError,
      handler: ({ ctx, body }) => runScrape(ctx, deps.controlPlane, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/scrape/estimate',
      operationId: 'estimateScrape',
      summary: 'Price a scrape without running it',
      description:
        'Plans the tiers the request would try (mode, render_js, cost_controls) and answers the price of the first tier and ' +
        'of the most expensive one (the reservation). Nothing is charged or fetched.',
      tags: ['Scrape'],
      auth: 'api_key',
      bodyLimitBytes: SCRAPE_REQUEST_LIMIT_BYTES,
      request: { body: ScrapeRequest },
      responses: { 200: { description: 'The estimate', schema: EstimateResult } },
      errors: { 400: 'EXCEEDS_COST_LIMIT, or what a scrape refuses before it runs (use_proxy without a premium network); URL_NOT_ALLOWED for a private own proxy' },
      handler: async ({ ctx, body }) => {
        const res = await deps.controlPlane.scrape.estimate({ request: toProto(body) }, callOptions(ctx, 10_000));
        ctx.body = {
          url: body.url,
          mode: body.mode,
          estimated_credits: toCredits(res.estimatedMicrocents),
          max_possible_credits: toCredits(res.maxPossibleMicrocents),
          estimated_tier: res.tiers[0] ?? null,
          tier_plan: res.tiers,
          runnable: res.runnable,
          affordable: res.affordable,
          available_tiers: res.availableTiers,
          version: 'v1',
        };
      },
    }),
  ];
}
