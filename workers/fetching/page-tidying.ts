import type { Page } from 'playwright-core';
import { CONSENT_BANNER_SELECTORS, MAX_CONSENT_BANNER_CHARS } from '../../common/consent-banners.js';

/**
 * What the browser does to a loaded page before reading it: cookie banners
 * removed, and lazily loaded content scrolled into the document.
 */

/** A sentence (at least BANNER_SENTENCE_CHARS long) naming cookies or consent marks a fixed or dialog box as a possible banner... */
const BANNER_TEXT = /\bcookies?\b|\bconsent\b/i;
const BANNER_SENTENCE_CHARS = 20;
/** ...which it is when the box also speaks of choosing or of privacy, as banners do (a recipe's dialog about cookies does not). */
const BANNER_CHOICE = /\b(accept|agree|reject|decline|dismiss|got it|privacy|personali[sz]\w*|preferences|use (of )?cookies|uses cookies|tracking|opt[ -]?out)\b/i;

/**
 * Runs in the page (the worker is compiled without the DOM library, so the
 * in-page code is a script string). Asked to check the height first, it
 * answers only that the page must be scrolled when it is taller than the
 * window; otherwise it removes the banners when asked (and the scroll lock
 * they put on the page) and answers the serialised document, so a page that
 * needs no scrolling is tidied and read in one round trip.
 */
const READ_SCRIPT = `(({ heightFirst, banners, selectors, pattern, sentence, choice, maxChars }) => {
  if (heightFirst && document.documentElement.scrollHeight > window.innerHeight) return { tall: true };
  if (banners) {
    const text = new RegExp(pattern, 'i');
    const choosing = new RegExp(choice, 'i');
    const found = new Set();
    for (const selector of selectors) {
      try { document.querySelectorAll(selector).forEach((el) => found.add(el)); } catch { /* a selector this engine does not know */ }
    }
    // Hand-made banners: from each sentence that talks about cookies, the nearest fixed, sticky or dialog box
    // holding it, if that box is small and offers a choice or speaks of privacy. Only those ancestors get their
    // style computed, so a long page costs little.
    const said = (n) => text.test(n.nodeValue) && n.nodeValue.trim().length >= sentence;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (said(n) ? 1 : 3) });
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let el = node.parentElement; el && el !== document.body; el = el.parentElement) {
        const style = getComputedStyle(el);
        if (style.position === 'fixed' || style.position === 'sticky' || el.getAttribute('role') === 'dialog') {
          const boxText = el.textContent || '';
          if (boxText.length < maxChars && choosing.test(boxText)) found.add(el);
          break;
        }
      }
    }
    found.forEach((el) => el.remove());
    for (const root of [document.documentElement, document.body]) {
      if (root && getComputedStyle(root).overflow === 'hidden') root.style.overflow = 'visible';
    }
  }
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  return { html: doctype + (document.documentElement ? document.documentElement.outerHTML : '') };
})`;

function readScript(heightFirst: boolean, banners: boolean): string {
  const banner = { selectors: CONSENT_BANNER_SELECTORS, pattern: BANNER_TEXT.source, sentence: BANNER_SENTENCE_CHARS, choice: BANNER_CHOICE.source, maxChars: MAX_CONSENT_BANNER_CHARS };
  return `${READ_SCRIPT}(${JSON.stringify({ heightFirst, banners, ...banner })})`;
}

export interface ReadOptions {
  /** true scrolls to the end, false never scrolls, undefined scrolls a page taller than the window while it grows. */
  scroll: boolean | undefined;
  removeBanners: boolean;
  deadlineMs: number;
}

/**
 * The loaded page as the caller asked for it: scrolled to load lazy
 * content, cookie banners removed, then serialised (doctype and document).
 */
export async function readPage(page: Page, opts: ReadOptions): Promise<string> {
  if (opts.scroll !== false) {
    const first = (await page.evaluate(readScript(true, opts.removeBanners))) as { tall?: true; html?: string };
    if (!first.tall) return first.html ?? '';
    await scrollToEnd(page, opts.deadlineMs, opts.scroll === undefined);
  }
  return ((await page.evaluate(readScript(false, opts.removeBanners))) as { html: string }).html;
}

/** Rounds of scrolling at most, how long each waits for new content, and how soon a round with no request is over. */
const MAX_SCROLL_ROUNDS = 20;
const SCROLL_SETTLE_MS = 250;
const SCROLL_QUIET_MS = 80;

/**
 * Scrolls to the bottom until the page stops growing, the rounds run out or
 * the deadline comes; answers the rounds. Each round waits for new content;
 * when `quick`, a round in which the page started no request and did not
 * grow within a short while ends the scrolling at once, so a tall page that
 * loads nothing on scroll costs one short wait.
 */
export async function scrollToEnd(page: Page, deadlineMs: number, quick: boolean): Promise<number> {
  let requests = 0;
  const onRequest = () => void requests++;
  page.on('request', onRequest);
  try {
    const pageHeight = () => page.evaluate('document.documentElement.scrollHeight') as Promise<number>;
    let height = await pageHeight();
    let rounds = 0;
    while (rounds < MAX_SCROLL_ROUNDS && Date.now() + SCROLL_SETTLE_MS < deadlineMs) {
      const before = requests;
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      rounds++;
      if (quick) {
        await page.waitForTimeout(SCROLL_QUIET_MS);
        const grown = (await pageHeight()) > height;
        if (!grown && requests === before) break;
        await page.waitForTimeout(SCROLL_SETTLE_MS - SCROLL_QUIET_MS);
      } else {
        await page.waitForTimeout(SCROLL_SETTLE_MS);
      }
      const next = await pageHeight();
      if (next <= height) break;
      height = next;
    }
    return rounds;
  } finally {
    page.off('request', onRequest);
  }
}
