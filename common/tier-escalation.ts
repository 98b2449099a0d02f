import { CAPTCHA_TIER, SLOW_TIER, tierRank as rank } from './tiers.js';

/**
 * Escalation between the tiers of a plan: one policy for scrapes (decided by
 * the control plane on each attempt's report) and crawl pages (applied by the
 * crawl worker within a batch). Workers classify; this decides.
 */

/** A successful fetch that returned an HTML shell whose content only JavaScript renders (AttemptReport.classification). */
export const JS_SHELL = 'js_shell';

/** What a fetch that met a captcha widget standing in for the page reports (AttemptReport.classification). */
export const CAPTCHA_CLASSIFICATION = 'captcha';

/**
 * The next tier after `current` in the plan, if escalation should continue.
 * A JavaScript shell skips the HTTP tiers (they would fetch the same shell)
 * for the first planned tier that runs a browser, unless the caller turned
 * rendering off (render_js false) or asked for html mode. A captcha goes
 * straight to the captcha tier when planned, and ends the job otherwise.
 */
export function nextTier(plan: readonly string[], current: string, outcome: { classification?: string; renderJs?: unknown; mode?: string } = {}): string | undefined {
  const at = plan.indexOf(current);
  if (at < 0) return undefined;
  // The captcha tier is only for captchas, and a captcha is in the page whatever client fetches it.
  if (outcome.classification === CAPTCHA_CLASSIFICATION) return plan.slice(at + 1).includes(CAPTCHA_TIER) ? CAPTCHA_TIER : undefined;
  const later = plan.slice(at + 1).filter((t) => t !== CAPTCHA_TIER);
  if (outcome.classification === JS_SHELL) {
    if (outcome.renderJs === false || outcome.mode === 'html') return undefined;
    return later.find((t) => rank(t) >= rank(SLOW_TIER));
  }
  return later[0];
}

/**
 * Why a JavaScript shell that no later tier of its plan renders is a
 * failure, or null when the shell is the answer the caller chose: rendering
 * turned off (render_js false), html mode, a max_tier below the browser
 * tiers, or what keeps a request on the HTTP tiers (a method other than
 * GET, follow_redirects false). Otherwise the plan lost its browser tiers to a cost limit or to
 * fail_fast, and an empty shell charged as a success would answer nothing.
 */
export function unrenderedShell(request: {
  renderJs?: unknown;
  mode?: string;
  maxTier?: string;
  failFast?: boolean;
  maxCredits?: number;
  /** A method other than GET, or follow_redirects false, keep a request on the HTTP tiers (tier-plan.ts). */
  httpOnly?: boolean;
}): string | null {
  if (request.renderJs === false || request.mode === 'html' || request.httpOnly) return null;
  if (request.maxTier !== undefined && rank(request.maxTier) < rank(SLOW_TIER)) return null;
  const kept = request.failFast
    ? 'cost_controls.fail_fast'
    : request.maxCredits !== undefined
      ? 'cost_controls.max_credits (or the balance)'
      : "the balance, the API key's budget or this deployment's tiers";
  return `The page is a JavaScript shell whose content only a browser tier (${SLOW_TIER} and up) renders, and ${kept} kept this request from one`;
}
