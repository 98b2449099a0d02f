import { CAPTCHA_CLASSIFICATION } from '../../common/tier-escalation.js';
import { CAPTCHA_NAMES, findCaptcha, type CaptchaWidget } from './captcha-detector.js';
import type { FetchFailure } from './fetch-result.js';
import { isLoginWall, LOGIN_WALL_TEXT_CHARS } from './login-wall-detector.js';
import { PAYWALL_MARKS, PAYWALL_TEASER_CHARS, paywallEvidence } from './paywall-detector.js';
import { parsePage, visibleText as textOf } from './page-tree.js';
import { SOFT_404_CLASSIFICATION, softNotFound } from './soft-404-detector.js';
import { visibleTextReaches } from './visible-text.js';
import { textMatches, textWithin, type DocumentText } from '../html/document-text.js';

/**
 * Whether a page that loaded is a wall in front of the content rather than
 * the content: a sign-in form, a captcha, a subscription wall; or a page
 * saying that what was asked for is not there (a soft 404). A captcha
 * escalates (the captcha tier solves it); no tier gets past a sign-in, a
 * paywall or a missing page, so those end the job (refunded, SPEC 7.5).
 */

/** Characters of a page read for walls: they stand at the top of small pages. */
export const WALL_SCAN_CHARS = 256 * 1024;
/** Above this much visible text, a captcha widget guards a form on the page, not the page. */
export const CAPTCHA_WALL_TEXT_CHARS = 1_000;

/** The most text a sign-in form, a captcha or an unmarked subscription wall shows: a page with more is its content. */
const SMALL_WALL_TEXT_CHARS = Math.max(LOGIN_WALL_TEXT_CHARS, CAPTCHA_WALL_TEXT_CHARS, PAYWALL_TEASER_CHARS);

export type PageWall = Pick<FetchFailure, 'code' | 'message' | 'escalate' | 'classification'>;

/**
 * Text every wall's markup contains (a password field, a captcha widget's
 * name, a wall container's or its call to subscribe), found in one fast
 * pass: a page without any is not parsed.
 */
const WALL_HINT = /password|captcha|turnstile|isAccessibleForFree|wall|subscri|member|(?:continue|keep) reading|tp-modal|tp-container/i;

function captchaWall(widget: CaptchaWidget | null): PageWall | null {
  if (!widget) return null;
  return { code: 'CHALLENGE_DETECTED', message: `The page is held behind a ${CAPTCHA_NAMES[widget.kind]} captcha`, escalate: true, classification: CAPTCHA_CLASSIFICATION };
}

/** A refusal (403, 429 or 503) whose page asks for a captcha: the captcha tier may pass it where the others are refused. */
export function refusalCaptcha(head: string): PageWall | null {
  return /captcha|turnstile/i.test(head) ? captchaWall(findCaptcha(head.slice(0, WALL_SCAN_CHARS))) : null;
}

/**
 * Whether the start of a page (its first WALL_SCAN_CHARS) may be a wall:
 * only such a page is parsed into a tree for the full check. It names
 * something every wall's markup does, and it either shows a subscription
 * wall's mark (only a marked wall holds back a page that shows much text) or
 * shows little text, told by one pass without a tree that stops at that much.
 */
export function mayBeWall(head: DocumentText): boolean {
  if (!textMatches(WALL_HINT, head)) return false;
  return textMatches(PAYWALL_MARKS, head) || !visibleTextReaches(head, SMALL_WALL_TEXT_CHARS);
}

export function detectWall(page: { html: DocumentText; requestedUrl: string; finalUrl: string }): PageWall | null {
  const head = textWithin(page.html, WALL_SCAN_CHARS);
  const notFound = softNotFound(head);
  if (notFound !== null) {
    return { code: 'TARGET_NOT_FOUND', message: `The page says it was not found (a soft 404): "${notFound.slice(0, 120)}"`, escalate: false, classification: SOFT_404_CLASSIFICATION };
  }
  if (!mayBeWall(head)) return null;
  const $ = parsePage(head);
  const visibleText = textOf($);

  if (isLoginWall($, visibleText, { requested: page.requestedUrl, final: page.finalUrl })) {
    return { code: 'REQUIRES_AUTH', message: 'The page is a sign-in form standing in for the content (login wall)', escalate: false, classification: 'login_wall' };
  }
  const captcha = visibleText.length < CAPTCHA_WALL_TEXT_CHARS ? captchaWall(findCaptcha($)) : null;
  if (captcha) return captcha;
  const paywall = paywallEvidence($, visibleText, head);
  if (paywall) return { code: 'PAYWALL_DETECTED', message: `The page is behind a paywall: ${paywall}`, escalate: false, classification: 'paywall' };
  return null;
}
