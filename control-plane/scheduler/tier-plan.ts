import { TrawlError } from '../../common/errors.js';
import { addOnsPrice, tierPrice, toCredits, toMicrocents, type AddOn } from '../../common/pricing.js';
import { BROWSER_TIER, CAPTCHA_TIER, DEFAULT_MAX_TIER, DOCUMENT_POOL, DOCUMENT_TIER, HTTP_MAX_TIER, PREMIUM_PROXY_TIER, SLOW_TIER, TIER_ORDER, tierRank as rank } from '../../common/tiers.js';

export interface TierPlanInput {
  mode: string;
  renderJs: boolean;
  costControls: {
    maxCredits?: number | undefined;
    forceTier?: string | undefined;
    maxTier?: string | undefined;
    preferCost?: boolean;
    preferSpeed?: boolean;
    failFast?: boolean;
  };
  /** The target request's method (GET when absent): a browser tier navigates with GET, so any other runs on the HTTP tiers. */
  method?: string;
  /** follow_redirects false: the 3xx answer is the result, which only the HTTP tiers give (a browser follows redirects). */
  followRedirects?: boolean;
  /** An option only a browser carries out (wait_for, enable_scroll true), by its field: it asks for the browser as render_js does. */
  browserOption?: string;
  /** advanced.ocr: an image response is read by OCR (on the document pool). */
  ocr?: boolean;
  /** The SPEC 2.5 add-ons the request takes, charged with its successful attempt. */
  addOns?: readonly AddOn[];
  /** Tiers with a worker pool deployed; 3.5 when tier 3's pool runs and the premium proxy pool is configured. */
  availableTiers: readonly string[];
  /** Whether the document pool (PDF and OCR) is deployed. */
  documentPool?: boolean;
  /**
   * The tier that last worked for the caller on this host (tier-memory.ts):
   * the plan starts there when it holds that tier, unless the caller forced
   * a tier or asked for the cheapest tiers first (prefer_cost).
   */
  learnedTier?: string | undefined;
}

export interface TierPlan {
  /** Tiers in the order they may be tried; the first is where the job starts. */
  tiers: string[];
  /** The most the job can cost: only the successful attempt is charged. */
  maxCostMicrocents: number;
  /** The pool every attempt runs on, when it is not the tier's own (TIER_POOLS). */
  pool?: string;
  /** Charged with the successful attempt on top of its tier's price (the add-ons). */
  addOnMicrocents?: number;
}

/** Modes run by the document pool. */
const DOCUMENT_MODES: ReadonlySet<string> = new Set(['pdf', 'ocr']);

/** A request field that limits the plan, and why: an entry of VALIDATION_ERROR's details.fields when it conflicts with another. */
interface Limit {
  field: string;
  message: string;
}

/** What keeps a request on the HTTP tiers (1 and 2), if anything. */
function httpOnlyLimit(input: Pick<TierPlanInput, 'mode' | 'method' | 'followRedirects'>): Limit | null {
  if (input.mode === 'html') return { field: 'mode', message: 'html runs on the HTTP tiers (1 and 2)' };
  if (input.method !== undefined && input.method !== '' && input.method !== 'GET') {
    return { field: 'method', message: `a browser navigates with GET; ${input.method} runs on the HTTP tiers (1 and 2)` };
  }
  if (input.followRedirects === false) return { field: 'follow_redirects', message: 'false is served by the HTTP tiers (1 and 2)' };
  return null;
}

/** What asks for a browser, if anything. */
function browserLimit(input: TierPlanInput): Limit | null {
  if (input.renderJs) return { field: 'advanced.render_js', message: `needs a browser tier (${SLOW_TIER} and up)` };
  if (input.mode === 'js') return { field: 'mode', message: `js needs a browser tier (${SLOW_TIER} and up)` };
  if (input.browserOption) return { field: input.browserOption, message: `is carried out by a browser tier (${SLOW_TIER} and up)` };
  return null;
}

function conflict(message: string, ...limits: Limit[]): TrawlError {
  return new TrawlError('VALIDATION_ERROR', message, { fields: limits.map((l) => ({ ...l, code: 'conflict' })) });
}

/**
 * Decides which tiers a scrape (or a crawl's pages) may run on and what it
 * reserves; moving between them is common/tier-escalation.ts. New pools join
 * by being deployed (availableTiers) and nothing else changes.
 */
export function planTiers(input: TierPlanInput): TierPlan {
  const { costControls: cc } = input;
  const maxTier = cc.maxTier ?? DEFAULT_MAX_TIER;
  if (cc.forceTier !== undefined && rank(cc.forceTier) > rank(maxTier)) {
    throw conflict(
      'cost_controls.force_tier cannot exceed cost_controls.max_tier',
      { field: 'cost_controls.force_tier', message: `tier ${cc.forceTier} is above max_tier ${maxTier}` },
      { field: 'cost_controls.max_tier', message: `tier ${maxTier}` },
    );
  }

  if (cc.preferSpeed && cc.preferCost) {
    throw conflict(
      'cost_controls.prefer_speed and prefer_cost pull opposite ways; send one',
      { field: 'cost_controls.prefer_speed', message: `starts at tier ${SLOW_TIER}` },
      { field: 'cost_controls.prefer_cost', message: 'starts at the cheapest tier' },
    );
  }

  if (DOCUMENT_MODES.has(input.mode) || input.ocr) return documentPlan(input);

  const httpOnly = httpOnlyLimit(input);
  const browser = browserLimit(input);
  if (httpOnly && browser) throw conflict(`${browser.field} needs a browser, which ${httpOnly.field} rules out`, browser, httpOnly);
  let candidates: string[];
  if (cc.forceTier !== undefined) {
    const forced = { field: 'cost_controls.force_tier', message: `tier ${cc.forceTier}` };
    if (browser && rank(cc.forceTier) < rank(SLOW_TIER)) throw conflict(`${browser.field} needs a browser, which cost_controls.force_tier ${cc.forceTier} does not run`, browser, forced);
    if (httpOnly && rank(cc.forceTier) > rank(HTTP_MAX_TIER)) throw conflict(`${httpOnly.field} keeps the request on the HTTP tiers, below cost_controls.force_tier ${cc.forceTier}`, httpOnly, forced);
    candidates = [cc.forceTier];
  } else if (browser) {
    if (rank(maxTier) < rank(SLOW_TIER)) {
      throw conflict(`${browser.field} needs a browser tier (${SLOW_TIER} and up), above cost_controls.max_tier ${maxTier}`, browser, {
        field: 'cost_controls.max_tier',
        message: `tier ${maxTier} is below ${SLOW_TIER}`,
      });
    }
    // The browser tier, or under a lower max_tier the highest browser tier it allows (stealth renders too).
    const allowed = TIER_ORDER.filter((t) => rank(t) >= rank(SLOW_TIER) && rank(t) <= rank(maxTier) && (t !== PREMIUM_PROXY_TIER || input.availableTiers.includes(t)));
    candidates = rank(maxTier) >= rank(BROWSER_TIER) ? [BROWSER_TIER] : allowed.slice(-1);
  } else {
    const ceiling = httpOnly ? Math.min(rank(maxTier), rank(HTTP_MAX_TIER)) : rank(maxTier);
    // Tier 3.5 joins escalation only where it runs: dropped below with the other tiers not deployed.
    candidates = TIER_ORDER.filter((t) => rank(t) <= ceiling && (t !== PREMIUM_PROXY_TIER || input.availableTiers.includes(t)));
    if (cc.preferSpeed) {
      candidates = candidates.filter((t) => rank(t) >= rank(SLOW_TIER));
      if (candidates.length === 0) {
        const limit = httpOnly?.field ?? 'cost_controls.max_tier';
        throw conflict(
          `cost_controls.prefer_speed starts at tier ${SLOW_TIER}, which ${limit} rules out`,
          { field: 'cost_controls.prefer_speed', message: `starts at tier ${SLOW_TIER}` },
          { field: limit, message: `allows nothing from tier ${SLOW_TIER} up` },
        );
      }
    }
  }

  const addOnMicrocents = addOnsPrice(input.addOns ?? []);
  const price = (t: string) => tierPrice(t) + addOnMicrocents;
  if (cc.maxCredits !== undefined) {
    const budget = toMicrocents(cc.maxCredits);
    const affordable = candidates.filter((t) => price(t) <= budget);
    if (affordable.length === 0) {
      const cheapest = Math.min(...candidates.map(price));
      throw new TrawlError('EXCEEDS_COST_LIMIT', 'the cheapest tier this request can use costs more than cost_controls.max_credits', {
        max_credits: cc.maxCredits,
        estimated_credits: toCredits(cheapest),
      });
    }
    candidates = affordable;
  }

  const deployed = candidates.filter((t) => input.availableTiers.includes(t));
  if (deployed.length === 0) {
    throw new TrawlError('SERVICE_UNAVAILABLE', `this request needs tier ${candidates.join(' or ')}, which is not deployed on this service`, {
      required_tiers: candidates,
      available_tiers: [...input.availableTiers],
    });
  }
  const learned = cc.forceTier === undefined && !cc.preferCost && input.learnedTier !== undefined ? deployed.indexOf(input.learnedTier) : -1;
  const from = learned > 0 ? deployed.slice(learned) : deployed;
  const tiers = cc.failFast ? from.slice(0, 1) : from;
  if (plansCaptchaTier(input, maxTier, httpOnly !== null)) tiers.push(CAPTCHA_TIER);
  return { tiers, maxCostMicrocents: Math.max(...tiers.map(price)), ...(addOnMicrocents > 0 ? { addOnMicrocents } : {}) };
}

/**
 * Tier 5 ends a plan that escalates up to the browser, when it is deployed
 * and max_credits allows its price with the request's add-ons. The caller never names it (SPEC 2.1):
 * max_tier 4 leaves it on; a lower max_tier, force_tier, fail_fast and
 * whatever keeps the request on the HTTP tiers (`httpOnly`) leave it
 * off. It runs only after an attempt met a captcha (nextTier).
 */
function plansCaptchaTier(input: TierPlanInput, maxTier: string, httpOnly: boolean): boolean {
  const { costControls: cc } = input;
  if (cc.forceTier !== undefined || cc.failFast || httpOnly || rank(maxTier) < rank(BROWSER_TIER)) return false;
  if (!input.availableTiers.includes(CAPTCHA_TIER)) return false;
  // Its attempt is charged with the request's add-ons, as every tier's is.
  return cc.maxCredits === undefined || tierPrice(CAPTCHA_TIER) + addOnsPrice(input.addOns ?? []) <= toMicrocents(cc.maxCredits);
}

/**
 * Modes pdf and ocr (and advanced.ocr) run on the document pool, which
 * fetches over plain HTTP: one attempt at tier 1, no escalation, with the
 * OCR add-on when images are read. Cost controls still bound it.
 */
function documentPlan(input: TierPlanInput): TierPlan {
  const { costControls: cc } = input;
  const field = input.ocr && !DOCUMENT_MODES.has(input.mode) ? 'advanced.ocr' : 'mode';
  const what = field === 'mode' ? `mode "${input.mode}"` : 'advanced.ocr';
  if (input.renderJs || input.mode === 'js') {
    const browser = input.renderJs ? 'advanced.render_js' : 'mode';
    throw conflict(
      `${what} reads documents over plain HTTP and cannot be combined with ${input.renderJs ? 'advanced.render_js' : 'mode "js"'}`,
      { field: field === browser ? 'advanced.ocr' : field, message: 'runs on the document pool' },
      { field: browser, message: 'needs the browser' },
    );
  }
  if (input.ocr && (input.mode === 'html' || input.mode === 'pdf')) {
    // OCR reads an image response; these modes take only an HTML page or a PDF's text.
    throw conflict(
      `advanced.ocr reads an image, which mode "${input.mode}" does not take; send mode "ocr" (or "auto") for an image`,
      { field: 'advanced.ocr', message: 'reads images' },
      { field: 'mode', message: input.mode === 'html' ? 'takes only HTML' : "reads a PDF's text" },
    );
  }
  if (cc.forceTier !== undefined && cc.forceTier !== DOCUMENT_TIER) {
    throw conflict(`${what} is fetched at tier ${DOCUMENT_TIER}; cost_controls.force_tier ${cc.forceTier} cannot apply`, {
      field: 'cost_controls.force_tier',
      message: `only ${DOCUMENT_TIER} runs ${what}`,
    });
  }
  const addOnMicrocents = addOnsPrice(input.addOns ?? []);
  const cost = tierPrice(DOCUMENT_TIER) + addOnMicrocents;
  if (cc.maxCredits !== undefined && cost > toMicrocents(cc.maxCredits)) {
    throw new TrawlError('EXCEEDS_COST_LIMIT', `${what} costs more than cost_controls.max_credits`, {
      max_credits: cc.maxCredits,
      estimated_credits: toCredits(cost),
    });
  }
  if (!input.documentPool) {
    throw new TrawlError('SERVICE_UNAVAILABLE', `${what} needs the document pool, which is not deployed on this service`);
  }
  return { tiers: [DOCUMENT_TIER], maxCostMicrocents: cost, pool: DOCUMENT_POOL, addOnMicrocents };
}

/**
 * Why a JavaScript shell that no later tier of its plan renders is a
 * failure, or null when the shell is the answer the caller chose: rendering
 * turned off (advanced.render_js false, `renderJs` here as sent), a max_tier
 * below the browser tiers, or what keeps the request on the HTTP tiers
 * (httpOnlyLimit). Otherwise the plan lost its browser tiers to a cost limit
 * or to fail_fast, and an empty shell charged as a success would answer nothing.
 */
export function unrenderedShell(input: Pick<TierPlanInput, 'mode' | 'method' | 'followRedirects' | 'costControls'>, renderJs: unknown): string | null {
  const { costControls: cc } = input;
  if (renderJs === false || httpOnlyLimit(input) !== null) return null;
  if (cc.maxTier !== undefined && rank(cc.maxTier) < rank(SLOW_TIER)) return null;
  const kept = cc.failFast
    ? 'cost_controls.fail_fast'
    : cc.maxCredits !== undefined
      ? 'cost_controls.max_credits (or the balance)'
      : "the balance, the API key's budget or this deployment's tiers";
  return `The page is a JavaScript shell whose content only a browser tier (${SLOW_TIER} and up) renders, and ${kept} kept this request from one`;
}

/** What the plan reserves when it stops after each of its tiers: the dearest tier so far, and any add-on. */
export function reserveSteps(plan: TierPlan): number[] {
  let dearest = 0;
  return plan.tiers.map((tier) => (dearest = Math.max(dearest, tierPrice(tier))) + (plan.addOnMicrocents ?? 0));
}

/**
 * The plan as admission cuts it to what the account may reserve
 * (job-store.ts, INSERT_JOB_SQL's plan_cut): its longest prefix whose
 * reservation fits, at least the first tier; `affordable` is false when even
 * that does not fit (the scrape answers 402 INSUFFICIENT_CREDITS).
 */
export function affordablePlan(plan: TierPlan, allowanceMicrocents: number): { plan: TierPlan; affordable: boolean } {
  // The steps only grow (each is the dearest tier so far), so those that fit are a prefix.
  const steps = reserveSteps(plan);
  const fitting = steps.filter((step) => step <= allowanceMicrocents).length;
  const n = Math.max(1, fitting);
  return { plan: { ...plan, tiers: plan.tiers.slice(0, n), maxCostMicrocents: steps[n - 1]! }, affordable: steps[0]! <= allowanceMicrocents };
}

/** What the plan's first attempt costs if it succeeds: its tier's price and any add-on. */
export function firstAttemptPrice(plan: TierPlan): number {
  return tierPrice(plan.tiers[0]!) + (plan.addOnMicrocents ?? 0);
}

/**
 * The plan an estimate prices. A request this deployment cannot run is
 * priced as if every tier were deployed (a pdf or ocr document is fetched
 * like any page), and marked not runnable.
 */
export function estimateTiers(input: TierPlanInput): { plan: TierPlan; runnable: boolean } {
  try {
    return { plan: planTiers(input), runnable: true };
  } catch (err) {
    if (!(err instanceof TrawlError) || err.code !== 'SERVICE_UNAVAILABLE') throw err;
    return { plan: planTiers({ ...input, availableTiers: TIER_ORDER, documentPool: true }), runnable: false };
  }
}
