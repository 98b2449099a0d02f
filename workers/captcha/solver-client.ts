import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import type { CaptchaWidget } from '../fetching/captcha-detector.js';

/**
 * A client of a captcha-solving service speaking the 2captcha protocol
 * (in.php to submit, res.php to poll), which several services implement.
 * The service is the operator's (TRAWL_CAPTCHA_SOLVER_URL), not a target,
 * so it is reached directly rather than through the SSRF guard.
 */
export interface SolverConfig {
  /** e.g. `https://2captcha.com`; `/in.php` and `/res.php` are appended. */
  baseUrl: string;
  apiKey: string;
  /** Longest one solve may take, polling included. */
  timeoutMs: number;
  /** Wait before the first poll and between polls. */
  pollIntervalMs: number;
}

/** A solve that did not give a token: the service's error code (ERROR_CAPTCHA_UNSOLVABLE, …) or what went wrong on the way. */
export class CaptchaSolveError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'CaptchaSolveError';
  }
}

/** The answer that means "ask again later". */
const NOT_READY = 'CAPCHA_NOT_READY';
/** The service is busy: submit again after the poll interval. */
const NO_SLOT = 'ERROR_NO_SLOT_AVAILABLE';
/** reCAPTCHA v3 tokens asked for at this score or better. */
const V3_MIN_SCORE = '0.3';

/** The in.php parameters of a widget on a page. */
export function submission(widget: CaptchaWidget, pageUrl: string, apiKey: string): Record<string, string> {
  const common = { key: apiKey, pageurl: pageUrl, json: '1' };
  switch (widget.kind) {
    case 'recaptcha_v2':
      return { ...common, method: 'userrecaptcha', googlekey: widget.sitekey, ...(widget.invisible ? { invisible: '1' } : {}) };
    case 'recaptcha_v3':
      return { ...common, method: 'userrecaptcha', googlekey: widget.sitekey, version: 'v3', action: widget.action ?? 'verify', min_score: V3_MIN_SCORE };
    case 'hcaptcha':
      return { ...common, method: 'hcaptcha', sitekey: widget.sitekey };
    case 'turnstile':
      return { ...common, method: 'turnstile', sitekey: widget.sitekey, ...(widget.action ? { action: widget.action } : {}) };
  }
}

interface SolverAnswer {
  status: number;
  request: string;
}

async function call(url: URL, init: { method: 'GET' | 'POST'; form?: Record<string, string>; signal: AbortSignal }): Promise<SolverAnswer> {
  let res;
  try {
    res = await request(url, {
      method: init.method,
      signal: init.signal,
      ...(init.form ? { body: new URLSearchParams(init.form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
    });
  } catch (err) {
    if (init.signal.aborted) throw new CaptchaSolveError('TIMEOUT', 'the solver gave no answer in time');
    throw new CaptchaSolveError('UNREACHABLE', `the solver cannot be reached (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new CaptchaSolveError('SOLVER_HTTP_ERROR', `the solver answered HTTP ${res.statusCode}`);
  try {
    const answer = JSON.parse(text) as SolverAnswer;
    if (typeof answer.request === 'string') return answer;
  } catch {
    // Reported below.
  }
  throw new CaptchaSolveError('SOLVER_BAD_ANSWER', 'the solver answered something other than its JSON protocol');
}

function endpoint(baseUrl: string, name: 'in.php' | 'res.php'): URL {
  return new URL(name, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
}

/**
 * Submits the widget and polls until the service answers a token, fails,
 * or the timeout (or `signal`) ends the wait. Throws CaptchaSolveError.
 */
export async function solveCaptcha(config: SolverConfig, widget: CaptchaWidget, pageUrl: string, signal: AbortSignal): Promise<string> {
  const budget = AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]);
  const wait = () => delay(config.pollIntervalMs, undefined, { signal: budget }).catch(() => {
    throw new CaptchaSolveError('TIMEOUT', `the solver gave no token within ${Math.round(config.timeoutMs / 1000)} s`);
  });

  let id: string | undefined;
  while (id === undefined) {
    const submitted = await call(endpoint(config.baseUrl, 'in.php'), { method: 'POST', form: submission(widget, pageUrl, config.apiKey), signal: budget });
    if (submitted.status === 1) id = submitted.request;
    else if (submitted.request === NO_SLOT) await wait();
    else throw new CaptchaSolveError(submitted.request, `the solver refused the task (${submitted.request})`);
  }

  const poll = endpoint(config.baseUrl, 'res.php');
  poll.search = new URLSearchParams({ key: config.apiKey, action: 'get', id, json: '1' }).toString();
  for (;;) {
    await wait();
    const answer = await call(poll, { method: 'GET', signal: budget });
    if (answer.status === 1) return answer.request;
    if (answer.request !== NOT_READY) throw new CaptchaSolveError(answer.request, `the solver could not solve it (${answer.request})`);
  }
}
