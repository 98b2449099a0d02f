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
