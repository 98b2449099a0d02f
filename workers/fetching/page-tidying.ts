import type { Page } from 'playwright-core';

/**
 * What the browser does to a loaded page before reading it: cookie banners
 * removed, and lazily loaded content scrolled into the document.
 */

/** Consent banners of the common consent platforms, and the generic shapes of hand-made ones. */
const BANNER_SELECTORS = [
  '#onetrust-consent-sdk',
  '#onetrust-banner-sdk',
  '#CybotCookiebotDialog',
  '#cookiebanner',
  '#cookie-banner',
  '#cookie-notice',
  '#cookie-law-info-bar',
  '#gdpr-cookie-message',
  '.cc-window',
  '.cookie-banner',
  '.cookie-consent',
  '.cookie-notice',
  '.qc-cmp2-container',
  '.fc-consent-root',
  '#usercentrics-root',
  '#truste-consent-track',
  '[aria-label*="cookie" i][role="dialog"]',
  '[aria-label*="consent" i][role="dialog"]',
  '[class*="cookie-banner" i]',
  '[id*="cookie-consent" i]',
];

/** Words that make a fixed or dialog element a consent banner. */
const BANNER_TEXT = /\bcookies?\b|\bconsent\b/i;

/**
 * Runs in the page (the worker is compiled without the DOM library, so the
 * in-page code is a script string): removes the banners and the scroll lock
 * they put on the page, and answers how many it removed.
 */
const REMOVE_BANNERS_SCRIPT = `(({ selectors, pattern }) => {
  const text = new RegExp(pattern, 'i');
  const found = new Set();
  for (const selector of selectors) {
    try { document.querySelectorAll(selector).forEach((el) => found.add(el)); } catch { /* a selector this engine does not know */ }
  }
  // Hand-made banners: from each text that talks about cookies, the nearest fixed, sticky or dialog box holding
  // it, if that box is small. Only those ancestors get their style computed, so a long page costs little.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (text.test(n.nodeValue) ? 1 : 3) });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let el = node.parentElement; el && el !== document.body; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (style.position === 'fixed' || style.position === 'sticky' || el.getAttribute('role') === 'dialog') {
        if ((el.textContent || '').length < 3000) found.add(el);
        break;
      }
    }
  }
  found.forEach((el) => el.remove());
  for (const root of [document.documentElement, document.body]) {
    if (root && getComputedStyle(root).overflow === 'hidden') root.style.overflow = 'visible';
  }
  return found.size;
})`;

/** Removes consent banners; answers how many were removed. */
export async function removeCookieBanners(page: Page): Promise<number> {
  return page.evaluate(`${REMOVE_BANNERS_SCRIPT}(${JSON.stringify({ selectors: BANNER_SELECTORS, pattern: BANNER_TEXT.source })})`) as Promise<number>;
}

/** Rounds of scrolling at most, and how long each waits for new content. */
const MAX_SCROLL_ROUNDS = 20;
const SCROLL_SETTLE_MS = 250;

/**
 * Scrolls to the bottom until the page stops growing, the rounds run out or
 * the deadline comes. A page no taller than the window has nothing to
 * scroll and costs nothing; a page that does not load on scroll costs one
 * short wait.
 */
export async function scrollToLoad(page: Page, deadlineMs: number): Promise<number> {
  let rounds = 0;
  const pageHeight = () => page.evaluate('document.documentElement.scrollHeight') as Promise<number>;
  const [start, windowHeight] = (await page.evaluate('[document.documentElement.scrollHeight, window.innerHeight]')) as [number, number];
  if (start <= windowHeight) return 0;
  let height = start;
  while (rounds < MAX_SCROLL_ROUNDS && Date.now() + SCROLL_SETTLE_MS < deadlineMs) {
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await page.waitForTimeout(SCROLL_SETTLE_MS);
    const next = await pageHeight();
    rounds++;
    if (next <= height) break;
    height = next;
  }
  return rounds;
}
