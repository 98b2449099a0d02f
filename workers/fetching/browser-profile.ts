import type { BrowserContextOptions, CDPSession, Page } from 'playwright-core';
import { pointerPath } from './pointer-path.js';
import { acceptLanguageFor, languageList } from '../../common/locations.js';

/**
 * How a browser tier presents itself. Tier 4 is a plain Chromium with the
 * configured user agent; tier 3 (stealth) is a self-consistent desktop: the
 * user agent of the Chromium actually running, on the platform it runs on,
 * with matching languages, time zone, screen and WebGL vendor, no
 * navigator.webdriver, and a person's pauses and pointer moves.
 */
export interface BrowserProfile {
  /** Chromium flags the profile needs at launch. */
  launchArgs: readonly string[];
  /** The context of each task, given the running Chromium's version and the locale the task presents. */
  context(browserVersion: string, locale: string): BrowserContextOptions;
  /** Runs in every page before its own scripts. */
  initScript?: string;
  /** Settings made through a new page's DevTools session before it loads anything. */
  preparePage?(cdp: CDPSession, browserVersion: string, locale: string): Promise<void>;
  /** A person's gestures, made while the page loads; the page is read once both are done. */
  humanize?(page: Page): Promise<void>;
}

export function plainProfile(userAgent: string): BrowserProfile {
  return { launchArgs: [], context: (_version, locale) => ({ userAgent, locale }) };
}

const STEALTH_SCREEN = { width: 1920, height: 1080 };
const STEALTH_VIEWPORT = { width: 1920, height: 969 };

/** What a desktop Chromium on Linux with an Intel GPU reports; the page sees these, never the automation's defaults. */
const STEALTH_INIT = `(() => {
  const define = (object, name, value) => Object.defineProperty(object, name, { get: () => value, configurable: true });
  define(Navigator.prototype, 'webdriver', false);
  define(Navigator.prototype, 'hardwareConcurrency', 8);
  define(Navigator.prototype, 'deviceMemory', 8);
  for (const Context of [self.WebGLRenderingContext, self.WebGL2RenderingContext]) {
    if (!Context) continue;
    const getParameter = Context.prototype.getParameter;
    Context.prototype.getParameter = function (parameter) {
      if (parameter === 37445) return 'Google Inc. (Intel)';
      if (parameter === 37446) return 'ANGLE (Intel, Mesa Intel(R) UHD Graphics 630 (CFL GT2), OpenGL 4.6)';
      return getParameter.call(this, parameter);
    };
  }
})();`;

/** A pause of a person's length, in ms. */
const pause = (min: number, max: number) => new Promise((resolve) => setTimeout(resolve, min + Math.random() * (max - min)));

const stealthUserAgent = (version: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version.split('.')[0]}.0.0.0 Safari/537.36`;

/** The client hints of that user agent: a desktop Linux on x86 (the brands are Chromium's own). */
const STEALTH_UA_METADATA = { mobile: false, model: '', architecture: 'x86', platform: 'Linux', platformVersion: '' };

export function stealthProfile(): BrowserProfile {
  return {
    // Without it Chromium sets navigator.webdriver and says it is automated.
    launchArgs: ['--disable-blink-features=AutomationControlled'],
    context: (version, locale) => ({
      userAgent: stealthUserAgent(version),
      locale,
      timezoneId: 'America/New_York',
      viewport: STEALTH_VIEWPORT,
      screen: STEALTH_SCREEN,
      deviceScaleFactor: 1,
      // What Chromium sends for the page's own requests; the navigation's comes from preparePage.
      extraHTTPHeaders: { 'accept-language': acceptLanguageFor(locale) },
    }),
    initScript: STEALTH_INIT,
    // A context's locale alone makes Chromium announce that one tag (en-US) on navigations and in
    // navigator.languages; a person's Chromium lists the locale and its language (en-US,en;q=0.9), the
    // same on every request.
    async preparePage(cdp, version, locale) {
      await cdp.send('Emulation.setUserAgentOverride', { userAgent: stealthUserAgent(version), acceptLanguage: languageList(locale), userAgentMetadata: STEALTH_UA_METADATA });
    },
    async humanize(page) {
      // The pointer enters the window and swings towards the page's content in one curved, eased move of
      // 10-14 frames (about a fifth of a second), then rests a moment, as a hand does while a page appears.
      const from = { x: Math.round(100 + Math.random() * 400), y: Math.round(80 + Math.random() * 250) };
      const to = { x: Math.round(600 + Math.random() * 700), y: Math.round(300 + Math.random() * 450) };
      await page.mouse.move(from.x, from.y);
      for (const point of pointerPath(from, to, 10 + Math.floor(Math.random() * 5))) await page.mouse.move(point.x, point.y);
      await pause(40, 120);
    },
  };
}
