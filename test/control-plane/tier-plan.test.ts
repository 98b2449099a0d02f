import { expect } from 'chai';
import { TrawlError } from '../../common/errors.js';
import { nextTier } from '../../common/tier-escalation.js';
import { affordablePlan, estimateTiers, firstAttemptPrice, planTiers } from '../../control-plane/scheduler/tier-plan.js';

/** Every tier but captcha solving (a deployment without a solver) and 3.5 (no premium proxy network). */
const ALL = ['1', '2', '3', '4'];
const WITH_CAPTCHA = [...ALL, '5'];

function planError(fn: () => unknown): TrawlError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TrawlError) return err;
    throw err;
  }
  throw new Error('expected a TrawlError');
}

describe('tier planning', () => {
  it('escalates auto mode through every caller-reachable tier, reserving the most expensive', () => {
    const plan = planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: ALL });
    expect(plan.tiers).to.deep.equal(['1', '2', '3', '4']);
    expect(plan.maxCostMicrocents).to.equal(4_000);
  });

  it('plans tier 3.5 between 3 and 4 where it is deployed (a premium proxy network is configured)', () => {
    const plan = planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: [...ALL, '3.5'] });
    expect(plan.tiers).to.deep.equal(['1', '2', '3', '3.5', '4']);
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { maxTier: '3.5' }, availableTiers: [...ALL, '3.5'] }).tiers).to.deep.equal(['1', '2', '3', '3.5']);
    expect(planError(() => planTiers({ mode: 'auto', renderJs: false, costControls: { forceTier: '3.5' }, availableTiers: ALL })).code).to.equal('SERVICE_UNAVAILABLE');
  });

  it('adds the add-ons to every tier: the reservation, max_credits and the first attempt', () => {
    const plan = planTiers({ mode: 'auto', renderJs: true, costControls: {}, availableTiers: ALL, addOns: ['screenshot', 'generate_pdf'] });
    expect(plan).to.deep.equal({ tiers: ['4'], maxCostMicrocents: 4_600, addOnMicrocents: 600 });
    expect(firstAttemptPrice(plan)).to.equal(4_600);
    const proxied = planTiers({ mode: 'auto', renderJs: false, costControls: { maxCredits: 2.5 }, availableTiers: ALL, addOns: ['use_proxy'] });
    expect(proxied.tiers).to.deep.equal(['1', '2']);
    expect(proxied.maxCostMicrocents).to.equal(500);
    const err = planError(() => planTiers({ mode: 'auto', renderJs: false, costControls: { maxCredits: 4 }, availableTiers: ALL, addOns: ['use_own_proxy'] }));
    expect(err.code).to.equal('EXCEEDS_COST_LIMIT');
    expect(err.details).to.include({ estimated_credits: 5 });
  });

  it('plans only deployed tiers', () => {
    const plan = planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: ['1'] });
    expect(plan).to.deep.equal({ tiers: ['1'], maxCostMicrocents: 200 });
  });

  it('stops at max_tier and keeps html mode on the HTTP tiers', () => {
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { maxTier: '2' }, availableTiers: ALL }).tiers).to.deep.equal(['1', '2']);
    expect(planTiers({ mode: 'html', renderJs: false, costControls: {}, availableTiers: ALL }).tiers).to.deep.equal(['1', '2']);
  });

  it('sends render_js, js mode and the options only a browser carries out (wait_for, enable_scroll) straight to the browser tier', () => {
    expect(planTiers({ mode: 'auto', renderJs: true, costControls: {}, availableTiers: ALL }).tiers).to.deep.equal(['4']);
    expect(planTiers({ mode: 'js', renderJs: false, costControls: {}, availableTiers: ALL }).tiers).to.deep.equal(['4']);
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: ALL, browserOption: 'wait_for' }).tiers).to.deep.equal(['4']);
    // Under a max_tier of 3 or 3.5, the highest browser tier it allows renders (as force_tier 3 does); below 3 nothing can.
    expect(planTiers({ mode: 'auto', renderJs: true, costControls: { maxTier: '3' }, availableTiers: ALL }).tiers).to.deep.equal(['3']);
    expect(planTiers({ mode: 'js', renderJs: false, costControls: { maxTier: '3.5' }, availableTiers: [...ALL, '3.5'] }).tiers).to.deep.equal(['3.5']);
    expect(planTiers({ mode: 'js', renderJs: false, costControls: { maxTier: '3.5' }, availableTiers: ALL }).tiers).to.deep.equal(['3']);
    const low = planError(() => planTiers({ mode: 'auto', renderJs: true, costControls: { maxTier: '2' }, availableTiers: ALL }));
    expect(low.message).to.contain('needs a browser tier (3 and up)');
  });

  it('cuts a plan to what the account may spend, as admission does, and says when even the first tier is too dear', () => {
    const full = planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: ALL });
    expect(affordablePlan(full, 1_000)).to.deep.equal({ plan: { tiers: ['1', '2'], maxCostMicrocents: 300 }, affordable: true });
    expect(affordablePlan(full, 1_000_000).plan).to.deep.equal(full);
    const browser = planTiers({ mode: 'auto', renderJs: true, costControls: {}, availableTiers: ALL });
    expect(affordablePlan(browser, 1_000)).to.deep.equal({ plan: { tiers: ['4'], maxCostMicrocents: 4_000 }, affordable: false });
  });

  it('refuses prefer_speed with prefer_cost', () => {
    const err = planError(() => planTiers({ mode: 'auto', renderJs: false, costControls: { preferSpeed: true, preferCost: true }, availableTiers: ALL }));
    expect(err.code).to.equal('VALIDATION_ERROR');
    expect((err.details!['fields'] as Array<{ field: string }>).map((f) => f.field)).to.deep.equal(['cost_controls.prefer_speed', 'cost_controls.prefer_cost']);
  });

  it('honours force_tier, including 3.5, and refuses it above max_tier', () => {
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { forceTier: '3.5' }, availableTiers: [...ALL, '3.5'] })).to.deep.equal({
      tiers: ['3.5'],
      maxCostMicrocents: 2_500,
    });
    expect(planError(() => planTiers({ mode: 'auto', renderJs: false, costControls: { forceTier: '4', maxTier: '2' }, availableTiers: ALL })).code).to.equal(
      'VALIDATION_ERROR',
    );
  });

  it('drops tiers over max_credits and refuses when none is left', () => {
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { maxCredits: 10 }, availableTiers: ALL }).tiers).to.deep.equal(['1', '2', '3']);
    const err = planError(() => planTiers({ mode: 'auto', renderJs: false, costControls: { maxCredits: 0.5 }, availableTiers: ALL }));
    expect(err.code).to.equal('EXCEEDS_COST_LIMIT');
    expect(err.details).to.include({ estimated_credits: 1 });
  });

  it('keeps only the starting tier with fail_fast, and skips to a reliable tier with prefer_speed', () => {
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { failFast: true }, availableTiers: ALL }).tiers).to.deep.equal(['1']);
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { preferSpeed: true }, availableTiers: ALL }).tiers).to.deep.equal(['3', '4']);
  });

  it('starts at the tier that last worked for the host, unless the caller forced a tier or prefers cost', () => {
    const plan = (costControls: Parameters<typeof planTiers>[0]['costControls'], learnedTier: string | undefined, mode = 'auto') =>
      planTiers({ mode, renderJs: false, costControls, availableTiers: ALL, learnedTier }).tiers;
    expect(plan({}, '2')).to.deep.equal(['2', '3', '4']);
    expect(plan({}, '3')).to.deep.equal(['3', '4']);
    expect(plan({ failFast: true }, '2')).to.deep.equal(['2']);
    expect(plan({ preferCost: true }, '3')).to.deep.equal(['1', '2', '3', '4']);
    expect(plan({ forceTier: '1' }, '3')).to.deep.equal(['1']);
    // A remembered tier the request cannot use (max_tier, html mode) leaves the plan as it was.
    expect(plan({ maxTier: '2' }, '4')).to.deep.equal(['1', '2']);
    expect(plan({}, '4', 'html')).to.deep.equal(['1', '2']);
    expect(plan({}, undefined)).to.deep.equal(['1', '2', '3', '4']);
  });

  it('refuses render_js or js mode under a max_tier below the browser tier, naming both fields', () => {
    for (const [mode, renderJs, field] of [['auto', true, 'advanced.render_js'], ['js', false, 'mode']] as const) {
      const err = planError(() => planTiers({ mode, renderJs, costControls: { maxTier: '1' }, availableTiers: ALL }));
      expect(err.code).to.equal('VALIDATION_ERROR');
      expect(err.httpStatus).to.equal(400);
      expect((err.details!['fields'] as Array<{ field: string }>).map((f) => f.field)).to.deep.equal([field, 'cost_controls.max_tier']);
    }
  });

  it('refuses prefer_speed when html mode or max_tier leaves no tier from 3 up', () => {
    for (const [mode, maxTier, field] of [['html', undefined, 'mode'], ['auto', '2', 'cost_controls.max_tier']] as const) {
      const err = planError(() =>
        planTiers({ mode, renderJs: false, costControls: { preferSpeed: true, ...(maxTier ? { maxTier } : {}) }, availableTiers: ALL }),
      );
      expect(err.code).to.equal('VALIDATION_ERROR');
      expect((err.details!['fields'] as Array<{ field: string }>).map((f) => f.field)).to.deep.equal(['cost_controls.prefer_speed', field]);
    }
  });

  it('keeps a method other than GET and follow_redirects false on the HTTP tiers, with no captcha tier', () => {
    for (const extra of [{ method: 'POST' }, { method: 'DELETE' }, { method: 'HEAD' }, { followRedirects: false }]) {
      const plan = planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: [...ALL, '5'], ...extra });
      expect(plan.tiers, JSON.stringify(extra)).to.deep.equal(['1', '2']);
      expect(plan.maxCostMicrocents).to.equal(300);
    }
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: ALL, method: 'GET', followRedirects: true }).tiers).to.deep.equal(ALL);
    expect(planTiers({ mode: 'auto', renderJs: false, costControls: { forceTier: '2' }, availableTiers: ALL, method: 'POST' }).tiers).to.deep.equal(['2']);
  });

  it('refuses a browser asked for by one field and ruled out by another, naming both', () => {
    const fields = (fn: () => unknown) => {
      const err = planError(fn);
      expect(err.code).to.equal('VALIDATION_ERROR');
      expect(err.httpStatus).to.equal(400);
      const list = err.details!['fields'] as Array<{ field: string; code: string }>;
      expect(list.every((f) => f.code === 'conflict')).to.equal(true);
      return list.map((f) => f.field);
    };
    const cases: Array<[Partial<Parameters<typeof planTiers>[0]>, string[]]> = [
      [{ mode: 'html', renderJs: true }, ['advanced.render_js', 'mode']],
      [{ mode: 'js', method: 'POST' }, ['mode', 'method']],
      [{ renderJs: true, followRedirects: false }, ['advanced.render_js', 'follow_redirects']],
      [{ mode: 'html', costControls: { forceTier: '4' } }, ['mode', 'cost_controls.force_tier']],
      [{ method: 'PUT', costControls: { forceTier: '3' } }, ['method', 'cost_controls.force_tier']],
      [{ followRedirects: false, costControls: { forceTier: '4' } }, ['follow_redirects', 'cost_controls.force_tier']],
      [{ renderJs: true, costControls: { forceTier: '1' } }, ['advanced.render_js', 'cost_controls.force_tier']],
      [{ mode: 'js', costControls: { forceTier: '2' } }, ['mode', 'cost_controls.force_tier']],
      [{ costControls: { forceTier: '4', maxTier: '2' } }, ['cost_controls.force_tier', 'cost_controls.max_tier']],
      [{ method: 'POST', costControls: { preferSpeed: true } }, ['cost_controls.prefer_speed', 'method']],
    ];
    for (const [input, expected] of cases) {
      const full = { mode: 'auto', renderJs: false, costControls: {}, availableTiers: ALL, ...input };
      expect(fields(() => planTiers(full)), JSON.stringify(input)).to.deep.equal(expected);
    }
    expect(fields(() => planTiers({ mode: 'html', renderJs: false, costControls: {}, availableTiers: ALL, browserOption: 'wait_for' }))).to.deep.equal(['wait_for', 'mode']);
    expect(fields(() => planTiers({ mode: 'auto', renderJs: false, costControls: { maxTier: '2' }, availableTiers: ALL, browserOption: 'enable_scroll' }))).to.deep.equal([
      'enable_scroll',
      'cost_controls.max_tier',
    ]);
    // A browser tier named by force_tier renders: tier 3 serves render_js.
    expect(planTiers({ mode: 'js', renderJs: false, costControls: { forceTier: '3' }, availableTiers: ALL }).tiers).to.deep.equal(['3']);
  });

  it('answers SERVICE_UNAVAILABLE for a tier that is not deployed', () => {
    const err = planError(() => planTiers({ mode: 'auto', renderJs: true, costControls: {}, availableTiers: ['1'] }));
    expect(err.code).to.equal('SERVICE_UNAVAILABLE');
    expect(err.httpStatus).to.equal(503);
  });

  describe('documents (modes pdf and ocr, advanced.ocr)', () => {
    const doc = (over: Partial<Parameters<typeof planTiers>[0]>) =>
      planTiers({ mode: 'pdf', renderJs: false, costControls: {}, availableTiers: ALL, documentPool: true, ...over });

    it('runs one tier-1 attempt on the document pool, with the OCR add-on for images', () => {
      expect(doc({})).to.deep.equal({ tiers: ['1'], maxCostMicrocents: 200, pool: 'document', addOnMicrocents: 0 });
      const ocr = doc({ mode: 'ocr', addOns: ['ocr'] });
      expect(ocr).to.deep.equal({ tiers: ['1'], maxCostMicrocents: 1_200, pool: 'document', addOnMicrocents: 1_000 });
      expect(firstAttemptPrice(ocr)).to.equal(1_200);
      expect(doc({ mode: 'auto', ocr: true, addOns: ['ocr'] })).to.include({ pool: 'document', maxCostMicrocents: 1_200 });
    });

    it('refuses the browser, another forced tier and a max_credits below the price', () => {
      expect(planError(() => doc({ renderJs: true })).details).to.deep.include({
        fields: [
          { field: 'mode', message: 'runs on the document pool', code: 'conflict' },
          { field: 'advanced.render_js', message: 'needs the browser', code: 'conflict' },
        ],
      });
      expect(planError(() => doc({ mode: 'js', ocr: true })).code).to.equal('VALIDATION_ERROR');
      // OCR reads images, which modes html and pdf do not take: refused, not charged for nothing.
      for (const mode of ['html', 'pdf']) {
        const err = planError(() => doc({ mode, ocr: true, addOns: ['ocr'] }));
        expect(err.code, mode).to.equal('VALIDATION_ERROR');
        expect((err.details!['fields'] as Array<{ field: string }>).map((f) => f.field)).to.deep.equal(['advanced.ocr', 'mode']);
      }
      expect(planError(() => doc({ costControls: { forceTier: '4' } })).code).to.equal('VALIDATION_ERROR');
      expect(doc({ costControls: { forceTier: '1', maxCredits: 6 }, mode: 'ocr', addOns: ['ocr'] }).tiers).to.deep.equal(['1']);
      const over = planError(() => doc({ mode: 'ocr', costControls: { maxCredits: 5.5 }, addOns: ['ocr'] }));
      expect(over.code).to.equal('EXCEEDS_COST_LIMIT');
      expect(over.details).to.deep.equal({ max_credits: 5.5, estimated_credits: 6 });
    });

    it('answers SERVICE_UNAVAILABLE without the pool, and estimates such a request as not runnable', () => {
      expect(planError(() => doc({ documentPool: false })).code).to.equal('SERVICE_UNAVAILABLE');
      const { plan, runnable } = estimateTiers({ mode: 'ocr', renderJs: false, costControls: {}, availableTiers: ['1'], documentPool: false, addOns: ['ocr'] });
      expect(runnable).to.equal(false);
      expect(firstAttemptPrice(plan)).to.equal(1_200);
    });
  });

  it('finds the next tier of a plan', () => {
    expect(nextTier(['1', '2', '4'], '2')).to.equal('4');
    expect(nextTier(['1', '2', '4'], '4')).to.equal(undefined);
  });

  it('sends a JavaScript shell to the first planned browser tier, unless rendering is off or html mode was asked for', () => {
    const shell = { classification: 'js_shell' };
    expect(nextTier(['1', '2', '4'], '1', shell)).to.equal('4');
    expect(nextTier(['1', '2', '3', '4'], '1', shell)).to.equal('3');
    expect(nextTier(['1', '2'], '1', shell)).to.equal(undefined);
    expect(nextTier(['1', '2', '4'], '1', { ...shell, renderJs: false })).to.equal(undefined);
    expect(nextTier(['1', '2', '4'], '1', { ...shell, renderJs: 'auto' })).to.equal('4');
    expect(nextTier(['1', '2', '4'], '1', { ...shell, mode: 'html' })).to.equal(undefined);
  });

  describe('the captcha tier (5)', () => {
    const plan = (over: Partial<Parameters<typeof planTiers>[0]>) => planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: WITH_CAPTCHA, ...over });

    it('ends a plan that reaches the browser when deployed, reserving its price, and max_tier 4 keeps it', () => {
      expect(plan({})).to.deep.equal({ tiers: ['1', '2', '3', '4', '5'], maxCostMicrocents: 20_000 });
      expect(plan({ costControls: { maxTier: '4' } }).tiers).to.deep.equal(['1', '2', '3', '4', '5']);
      expect(plan({ renderJs: true }).tiers).to.deep.equal(['4', '5']);
      expect(plan({ costControls: { preferSpeed: true } }).tiers).to.deep.equal(['3', '4', '5']);
    });

    it('is left out without a solver, below max_tier 4, with force_tier, fail_fast, html mode or a max_credits under its price', () => {
      expect(planTiers({ mode: 'auto', renderJs: false, costControls: {}, availableTiers: ALL }).tiers).to.not.include('5');
      for (const costControls of [{ maxTier: '3' }, { forceTier: '4' }, { failFast: true }, { maxCredits: 99.5 }]) {
        expect(plan({ costControls }).tiers, JSON.stringify(costControls)).to.not.include('5');
      }
      expect(plan({ mode: 'html' }).tiers).to.deep.equal(['1', '2']);
      expect(plan({ costControls: { maxCredits: 100 } }).tiers).to.include('5');
      // Its attempt carries the add-ons too: a screenshot makes it 101 credits.
      expect(plan({ renderJs: true, addOns: ['screenshot'], costControls: { maxCredits: 100 } }).tiers).to.deep.equal(['4']);
      expect(plan({ renderJs: true, addOns: ['screenshot'], costControls: { maxCredits: 101 } }).tiers).to.deep.equal(['4', '5']);
    });

    it('is entered only from an attempt that met a captcha, straight from any tier', () => {
      const tiers = ['1', '2', '3', '4', '5'];
      expect(nextTier(tiers, '1', { classification: 'captcha' })).to.equal('5');
      expect(nextTier(tiers, '4')).to.equal(undefined);
      expect(nextTier(tiers, '3')).to.equal('4');
      expect(nextTier(tiers, '2', { classification: 'js_shell' })).to.equal('3');
      expect(nextTier(['1', '2', '5'], '1', { classification: 'js_shell' })).to.equal(undefined);
      expect(nextTier(['1', '2', '3', '4'], '1', { classification: 'captcha' })).to.equal(undefined);
      expect(nextTier(tiers, '5', { classification: 'captcha' })).to.equal(undefined);
    });
  });
});
