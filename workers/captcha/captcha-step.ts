import type { Page } from 'playwright-core';
import { CAPTCHA_NAMES, findCaptcha, type CaptchaKind } from '../fetching/captcha-detector.js';
import type { PageLoaderDeps } from '../fetching/page-loader.js';
import { CaptchaSolveError, solveCaptcha, type SolverConfig } from './solver-client.js';

/** The fields each widget leaves its token in, which the page's form posts. */
const RESPONSE_FIELDS: Readonly<Record<CaptchaKind, string[]>> = {
  recaptcha_v2: ['g-recaptcha-response'],
  recaptcha_v3: ['g-recaptcha-response'],
  // hCaptcha fills the reCAPTCHA field too, for sites that moved from one to the other.
  hcaptcha: ['h-captcha-response', 'g-recaptcha-response'],
  turnstile: ['cf-turnstile-response'],
};

/** The widget's own element, near which its form is. */
const WIDGET_SELECTORS: Readonly<Record<CaptchaKind, string>> = {
  recaptcha_v2: '.g-recaptcha',
  recaptcha_v3: '[data-action], [name="g-recaptcha-response"]',
  hcaptcha: '.h-captcha',
  turnstile: '.cf-turnstile',
};

/** How long a page is given to start navigating after the token went in, before its own requests are waited for instead. */
const NAVIGATION_GRACE_MS = 3_000;
/** The longest wait for the page after the captcha to go quiet. */
const SETTLE_MS = 10_000;

/**
 * Runs in the page (the worker is compiled without the DOM library): puts the
 * token in every response field (making one in the widget's form when the
 * page has none), answers later questions to the widget's API with it, then
 * continues as the widget would: the declared callback, or the form's
 * submission. Answers what it did.
 */
const INJECT_TOKEN_SCRIPT = `(({ token, fields, widgetSelector, callback, api }) => {
  const widget = document.querySelector(widgetSelector);
  const form = (widget && widget.closest('form')) || document.querySelector('form');
  for (const name of fields) {
    let targets = Array.from(document.querySelectorAll('[name="' + name + '"]'));
    if (targets.length === 0 && (form || widget)) {
      const field = document.createElement('textarea');
      field.name = name;
      field.style.display = 'none';
      (form || widget).appendChild(field);
      targets = [field];
    }
    for (const target of targets) target.value = token;
  }
  const existing = window[api] || {};
  window[api] = Object.assign(existing, {
    getResponse: () => token,
    execute: () => Promise.resolve(token),
    ready: (fn) => { if (typeof fn === 'function') fn(); },
  });
  const fn = callback ? callback.split('.').reduce((o, k) => (o == null ? undefined : o[k]), window) : undefined;
  if (typeof fn === 'function') { fn(token); return 'callback'; }
  if (form) { HTMLFormElement.prototype.submit.call(form); return 'submitted'; }
  return 'injected';
})`;

const WIDGET_API: Readonly<Record<CaptchaKind, string>> = {
  recaptcha_v2: 'grecaptcha',
  recaptcha_v3: 'grecaptcha',
  hcaptcha: 'hcaptcha',
  turnstile: 'turnstile',
};

/**
 * The captcha tier's step on a loaded page (PageLoaderDeps.beforeRead): the
 * widget found in the rendered page, solved by the configured service, the
 * token handed to the page, and the page after it waited for. A page with
 * no widget is read as it is; a solve that fails is CHALLENGE_DETECTED,
 * which no tier passes (every failure is refunded, SPEC 7.5).
 */
export function createCaptchaStep(solver: SolverConfig): NonNullable<PageLoaderDeps['beforeRead']> {
  return async (page: Page, { deadlineMs, signal }) => {
    const widget = findCaptcha(await page.content());
    if (!widget) return null;
    const name = CAPTCHA_NAMES[widget.kind];
    if (!solver.baseUrl) {
      return { kind: 'failed', failure: { code: 'CHALLENGE_DETECTED', message: `The page is held behind a ${name} captcha and this service has no captcha solver`, escalate: false } };
    }
    let token: string;
    try {
      const timeoutMs = Math.max(1, Math.min(solver.timeoutMs, deadlineMs - Date.now()));
      token = await solveCaptcha({ ...solver, timeoutMs }, widget, page.url(), signal);
    } catch (err) {
      if (!(err instanceof CaptchaSolveError)) throw err;
      return { kind: 'failed', failure: { code: 'CHALLENGE_DETECTED', message: `The ${name} captcha could not be solved: ${err.message}`, escalate: false } };
    }

    const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: NAVIGATION_GRACE_MS }).catch(() => null);
    const script = `${INJECT_TOKEN_SCRIPT}(${JSON.stringify({
      token,
      fields: RESPONSE_FIELDS[widget.kind],
      widgetSelector: WIDGET_SELECTORS[widget.kind],
      callback: widget.callback ?? '',
      api: WIDGET_API[widget.kind],
    })})`;
    // A submission can replace the document before the script's answer comes back; the navigation below is what counts.
    await page.evaluate(script).catch(() => undefined);
    await navigated;
    const settle = Math.max(1, Math.min(SETTLE_MS, deadlineMs - Date.now()));
    await page.waitForLoadState('load', { timeout: settle }).catch(() => undefined);
    await page.waitForLoadState('networkidle', { timeout: settle }).catch(() => undefined);
    return { kind: 'passed' };
  };
}
