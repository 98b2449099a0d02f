/**
 * The names consent banners go by: the elements of the common consent
 * platforms (OneTrust, Cookiebot, Usercentrics, Quantcast, Funding Choices,
 * TrustArc, the WordPress cookie plugins, cookieconsent) and the generic names
 * of hand-made ones. The browser tiers remove them from the rendered page
 * (page-tidying.ts, beside banners it finds by their look); the content
 * pipeline removes them from a whole page fetched over HTTP.
 */

/** Element ids, matched exactly (as written). */
export const CONSENT_BANNER_IDS = [
  'onetrust-consent-sdk',
  'onetrust-banner-sdk',
  'CybotCookiebotDialog',
  'cookiebanner',
  'cookie-banner',
  'cookie-notice',
  'cookie-law-info-bar',
  'gdpr-cookie-message',
  'usercentrics-root',
  'truste-consent-track',
] as const;

/** Class names, matched as whole names of the class list. */
export const CONSENT_BANNER_CLASSES = ['cc-window', 'cookie-banner', 'cookie-consent', 'cookie-notice', 'qc-cmp2-container', 'fc-consent-root'] as const;

/** Parts of a class list or id (any case) that name a banner wherever they appear. */
export const CONSENT_BANNER_CLASS_PART = 'cookie-banner';
export const CONSENT_BANNER_ID_PART = 'cookie-consent';

/** A dialog's aria-label that names it a banner. */
export const CONSENT_DIALOG_LABEL = /cookie|consent/i;

/** Text an element may hold and still be taken for a banner (a page section is larger). */
export const MAX_CONSENT_BANNER_CHARS = 3_000;

/** The same names as CSS selectors, for the browser. */
export const CONSENT_BANNER_SELECTORS: readonly string[] = [
  ...CONSENT_BANNER_IDS.map((id) => `#${id}`),
  ...CONSENT_BANNER_CLASSES.map((name) => `.${name}`),
  '[aria-label*="cookie" i][role="dialog"]',
  '[aria-label*="consent" i][role="dialog"]',
  `[class*="${CONSENT_BANNER_CLASS_PART}" i]`,
  `[id*="${CONSENT_BANNER_ID_PART}" i]`,
];

const IDS: ReadonlySet<string> = new Set(CONSENT_BANNER_IDS);
const CLASSES: ReadonlySet<string> = new Set(CONSENT_BANNER_CLASSES);

/** Whether an element's attributes name it a consent banner, by the same names as CONSENT_BANNER_SELECTORS. */
export function namesConsentBanner(attrs: Record<string, string>): boolean {
  const id = attrs['id'];
  if (id !== undefined && (IDS.has(id) || id.toLowerCase().includes(CONSENT_BANNER_ID_PART))) return true;
  const classes = attrs['class'];
  if (classes !== undefined) {
    if (classes.toLowerCase().includes(CONSENT_BANNER_CLASS_PART)) return true;
    for (const name of classes.split(/\s+/)) if (CLASSES.has(name)) return true;
  }
  const label = attrs['aria-label'];
  return label !== undefined && attrs['role'] === 'dialog' && CONSENT_DIALOG_LABEL.test(label);
}
