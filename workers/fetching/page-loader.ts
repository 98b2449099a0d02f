import type { Browser, BrowserContext, BrowserContextOptions, Page, Request, Response } from 'playwright-core';
import type { ArtifactExtension } from '../../common/artifacts.js';
import { WAIT_FOR_DEFAULT_MS, WAIT_FOR_MAX_MS } from '../../common/limits.js';
import type { BrowserOptions } from '../../proto/gen/trawl/v1/work_pb.js';
import { CHALLENGE_SCAN_CHARS, detectChallenge } from './challenge-detector.js';
import type { FetchFailure, FetchOutcome } from './fetch-result.js';
import { detectCharset } from './charset.js';
import { isTextualMime, parseContentType } from './content-type.js';
import { PDF_MIME } from './document-types.js';
import { classifyStatusAfterBody, classifyStatusBeforeBody, REFUSAL_STATUSES } from './http-fetcher.js';
import type { PageRequest } from './leased-fetch-work.js';
import { DEFAULT_LOCALE } from '../../common/locations.js';
import { assertUrlAllowed, isUrlAllowedNow, isUrlNotAllowedError, type GuardOptions } from '../../common/ssrf-guard.js';
import type { BrowserProfile } from './browser-profile.js';
import { readPage } from './page-tidying.js';
import { installRequestFilter } from './request-filter.js';
import { warmKey, type WarmPage, type WarmPages } from './warm-pages.js';

export interface PageLoaderDeps {
  browser(): Promise<Browser>;
  profile: BrowserProfile;
  /**
   * Tabs kept between tasks of one owner on one origin (tier 3): a task with
   * nothing of its own in the context reuses one, wiped of the last task's
   * cookies and storage, instead of starting a context and a renderer.
   */
  warmPages?: WarmPages;
  /** Keeps a screenshot or PDF of the page for 24 hours; answers its URL. */
  saveArtifact(bytes: Buffer, extension: ArtifactExtension): Promise<string>;
  guard: GuardOptions;
  maxBytes: number;
  /**
   * A tier's own step on the loaded page before it is read (the captcha
   * tier solves the page's captcha and continues past it). Answers a
   * failure to report, `passed` when it got the page past what held it, or
   * null to read the page as it then is.
   */
  beforeRead?(page: Page, step: { deadlineMs: number; signal: AbortSignal }): Promise<StepOutcome>;
}

/** What a tier's step made of the loaded page (PageLoaderDeps.beforeRead). */
export type StepOutcome = { kind: 'failed'; failure: Omit<FetchFailure, 'kind' | 'timings'> } | { kind: 'passed' } | null;

type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle';

/** How long a bot challenge page is given to reload into the page (challenges wait a few seconds before they do). */
const CHALLENGE_RELOAD_WAIT_MS = 10_000;

/** Whether the loaded document is a vendor's bot challenge (challenge-detector.ts), judged only for a refusal status. */
async function isChallengePage(page: Page, response: Response): Promise<boolean> {
  if (!REFUSAL_STATUSES.has(response.status())) return false;
  const html = await page.content().catch(() => '');
  return detectChallenge({ headers: await response.allHeaders(), body: html.slice(0, CHALLENGE_SCAN_CHARS) }) !== null;
}

const WAIT_UNTIL: ReadonlySet<string> = new Set(['load', 'domcontentloaded', 'networkidle']);
/** Where Chromium shows a navigation that failed. */
const BROWSER_ERROR_PAGE = 'chrome-error://';
/** Media types the browser renders as a page, read from the DOM; any other document is read as served. */
const RENDERED_MIMES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

/** A load whose task was abandoned (its deadline passed or it was cancelled): the context was closed under it. */
const ABANDONED = { code: 'TIMEOUT', message: 'The page load was abandoned', escalate: false } as const;

/** Chromium's names for a connection the guarded proxy refused or could not open. */
const PROXY_REFUSAL = /ERR_SOCKS_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED/;

/**
 * Loads one page in a fresh context of the shared browser (cookies, storage
 * and cache are the task's alone), as tier 4 does, or in a kept tab of the
 * owner on the page's origin (PageLoaderDeps.warmPages): cookies set, requests
 * filtered, navigation to wait_until, wait_for, scrolling, cookie banners
 * removed, then the rendered document read and classified like an HTTP
 * answer. Never throws for a target's behaviour.
 */
export async function loadPage(deps: PageLoaderDeps, req: PageRequest, options: BrowserOptions | undefined): Promise<FetchOutcome> {
  const started = performance.now();
  const deadlineMs = Date.now() + req.timeoutMs;
  const timings = () => ({ ttfbMs: Math.round(performance.now() - started), totalMs: Math.round(performance.now() - started) });
  let finalUrl = req.url;
  const fail = (failure: Omit<FetchFailure, 'kind' | 'timings'>): FetchFailure => ({ kind: 'failed', finalUrl, timings: timings(), ...failure });

  let tab: Tab | undefined;
  // Kept for the owner's next task on this origin when the load succeeds (a tier with warm pages only).
  let keepTab = false;
  const abandon = () => void tab?.context.close().catch(() => undefined);
  try {
    assertUrlAllowed(new URL(req.url), deps.guard);
    tab = await openTab(deps, req, options);
    const { page } = tab;
    // The main frame's requests that failed, redirect hops included: the last is the URL the proxy refused.
    const failedNavigations: string[] = [];
    tab.listen('requestfailed', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) failedNavigations.push(request.url());
    });
    req.signal.addEventListener('abort', abandon, { once: true });

    // The latest main document: a script challenge answers the first and reloads into the real one.
    let latest: Response | null = null;
    tab.listen('response', (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) latest = r;
    });
    const waitUntil = (WAIT_UNTIL.has(options?.waitUntil ?? '') ? options!.waitUntil : 'load') as WaitUntil;
    const humanize = deps.profile.humanize;
    let response: Response | null;
    try {
      // A profile that moves like a person moves while the page loads, as a person would: its navigation is
      // awaited only to the committed document, and the gestures run alongside the wait for wait_until.
      response = await page.goto(req.url, { waitUntil: humanize ? 'commit' : waitUntil, timeout: Math.max(1, deadlineMs - Date.now()) });
      // A gesture that fails (the page moved on) is no failure; a load that fails or times out is.
      if (humanize) await Promise.all([humanize(page).catch(() => undefined), page.waitForLoadState(waitUntil, { timeout: Math.max(1, deadlineMs - Date.now()) })]);
    } catch (err) {
      if (req.signal.aborted) return fail(ABANDONED);
      return fail(await navigationFailure(err, failedNavigations.at(-1) ?? req.url, deps.guard));
    }
    // A navigation the page started by itself (a challenge's reload) is followed to its end.
    await page.waitForLoadState(waitUntil, { timeout: Math.max(1, deadlineMs - Date.now()) }).catch(() => undefined);
    // A bot challenge whose script reloads into the page after a while (a timer of a few seconds) is given that while.
    const first = latest ?? response;
    if (first && (await isChallengePage(page, first))) {
      const wait = Math.max(1, Math.min(CHALLENGE_RELOAD_WAIT_MS, deadlineMs - Date.now()));
      await page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: wait }).catch(() => undefined);
      await page.waitForLoadState(waitUntil, { timeout: Math.max(1, deadlineMs - Date.now()) }).catch(() => undefined);
    }
    const step = await deps.beforeRead?.(page, { deadlineMs, signal: req.signal });
    if (step?.kind === 'failed') {
      finalUrl = page.url();
      return fail(step.failure);
    }
    // A page that sent itself somewhere that failed (a script or a refresh to a refused address) shows the browser's error page: no result.
    const errorPage = async () => {
      if (!page.url().startsWith(BROWSER_ERROR_PAGE)) return null;
      finalUrl = failedNavigations.at(-1) ?? req.url;
      return fail(await unreachable(finalUrl, deps.guard));
    };
    response = latest ?? response;
    finalUrl = page.url();
    const failedAway = await errorPage();
    if (failedAway) return failedAway;
    if (!response) return fail({ code: 'NETWORK_ERROR', message: 'The page gave no response', escalate: false });
    const status = response.status();
    // A refusal (403, 429, 503) that held a captcha the step passed without a new document (its callback showed the
    // content): what the page shows now is judged, not the status the page first came with.
    const judged = step?.kind === 'passed' && REFUSAL_STATUSES.has(status) ? 200 : status;
    const headers = await response.allHeaders();
    const early = classifyStatusBeforeBody(judged);
    if (early) return fail({ ...early, statusCode: status });
    const declared = parseContentType(headers['content-type']);
    if (declared && !RENDERED_MIMES.has(declared.mime)) {
      // A PDF, JSON, plain text or an image is not a page to render: its bytes as served are the result, read as the
      // HTTP tiers read them (the PDF's text, the JSON API's body), and refused where they would refuse them.
      if (!isTextualMime(declared.mime) && !req.acceptMimes.includes(declared.mime)) {
        return fail({ code: 'UNSUPPORTED_CONTENT_TYPE', message: `The content type ${declared.mime} is not supported in this mode`, statusCode: status, escalate: false });
      }
      const served = await servedBytes(page, response, declared.mime);
      if (!served) return fail({ code: 'NETWORK_ERROR', message: `The browser did not keep the ${declared.mime} document it was served`, statusCode: status, escalate: false });
      if (served.length > deps.maxBytes) {
        return fail({ code: 'CONTENT_TOO_LARGE', message: `The response is ${served.length} bytes, over the ${deps.maxBytes} byte limit`, statusCode: status, escalate: false });
      }
      const charset = detectCharset(served, declared.mime, declared.charset);
      return { kind: 'ok', statusCode: status, finalUrl, redirects: redirectsTo(response), headers, contentType: declared.mime, charset, body: served, bytes: served.length, timings: timings() };
    }

    if (options?.waitFor) {
      const limit = Math.min(options.waitForTimeoutMs || WAIT_FOR_DEFAULT_MS, WAIT_FOR_MAX_MS, Math.max(1, deadlineMs - Date.now()));
      try {
        await page.waitForSelector(options.waitFor, { state: 'attached', timeout: limit });
      } catch (err) {
        if (err instanceof Error && /Timeout/i.test(err.message)) {
          return fail({ code: 'TIMEOUT', message: `The element ${options.waitFor} did not appear within ${Math.round(limit / 1000)} s`, statusCode: status, escalate: false });
        }
        return fail({ code: 'EXTRACTION_FAILED', message: `wait_for ${JSON.stringify(options.waitFor)} is not a usable CSS selector`, statusCode: status, escalate: false });
      }
    }
    const html = await readSettledPage(page, { scroll: options?.scroll, removeBanners: options?.removeCookieBanners === true, deadlineMs }, waitUntil);
    finalUrl = page.url();
    const failedWhileRead = await errorPage();
    if (failedWhileRead) return failedWhileRead;
    const body = Buffer.from(html, 'utf8');
    if (body.length > deps.maxBytes) {
      return fail({ code: 'CONTENT_TOO_LARGE', message: `The rendered page is ${body.length} bytes, over the ${deps.maxBytes} byte limit`, statusCode: status, escalate: false });
    }
    const verdict = classifyStatusAfterBody(judged, headers, html.slice(0, CHALLENGE_SCAN_CHARS));
    if (verdict) return fail({ ...verdict, statusCode: status, bytes: body.length });
    const artifacts = await captureArtifacts(deps, page, options);
    keepTab = tab.warm !== null && new URL(finalUrl).origin === tab.warm.origin;
    return {
      ...artifacts,
      kind: 'ok',
      statusCode: status,
      finalUrl,
      redirects: redirectsTo(response),
      headers,
      contentType: 'text/html',
      charset: 'utf-8',
      body,
      bytes: body.length,
      timings: timings(),
    };
  } catch (err) {
    if (isUrlNotAllowedError(err)) return fail({ code: 'URL_NOT_ALLOWED', message: err.message, escalate: false });
    if (req.signal.aborted) return fail(ABANDONED);
    return fail({ code: 'NETWORK_ERROR', message: `The browser failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, escalate: false });
  } finally {
    req.signal.removeEventListener('abort', abandon);
    tab?.unlisten();
    if (tab?.warm && keepTab && !req.signal.aborted) void deps.warmPages!.keep(tab.warm);
    else await tab?.context.close().catch(() => undefined);
  }
}

/**
 * The bytes of a document the browser was served instead of a page. Chromium
 * shows a PDF in its viewer, and the navigation's body is then the viewer's
 * page: the PDF is fetched again from that page, through the browser's own
 * network (its proxy, the guard, the page's cookies).
 */
async function servedBytes(page: Page, response: Response, mime: string): Promise<Buffer | null> {
  if (mime !== PDF_MIME) return response.body().catch(() => null);
  const base64 = await page
    .evaluate(async (url) => {
      const bytes = new Uint8Array(await (await fetch(url, { credentials: 'include' })).arrayBuffer());
      let binary = '';
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(binary);
    }, response.url())
    .catch(() => null);
  return base64 === null ? null : Buffer.from(base64, 'base64');
}

/** A page that navigates again while it is read (a script's or a refresh's redirect) is read once its new document has loaded. */
const READ_ATTEMPTS = 3;
const NAVIGATED_AWAY = /Execution context was destroyed|navigat/i;

async function readSettledPage(page: Page, opts: Parameters<typeof readPage>[1], waitUntil: WaitUntil): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readPage(page, opts);
    } catch (err) {
      if (attempt >= READ_ATTEMPTS || !(err instanceof Error) || !NAVIGATED_AWAY.test(err.message)) throw err;
      await page.waitForLoadState(waitUntil, { timeout: Math.max(1, opts.deadlineMs - Date.now()) }).catch(() => undefined);
    }
  }
}

/** The URLs the main document was redirected from, first to last. */
function redirectsTo(response: Response): string[] {
  const redirects: string[] = [];
  for (let r = response.request().redirectedFrom(); r; r = r.redirectedFrom()) redirects.unshift(r.url());
  return redirects;
}

/** The context and page a load runs in, with the listeners the load added (removed before the tab is kept). */
interface Tab {
  context: BrowserContext;
  page: Page;
  /** Set when the tab may be kept for the owner's next task on its origin. */
  warm: WarmPage | null;
  listen<E extends 'response' | 'requestfailed'>(event: E, listener: E extends 'response' ? (r: Response) => void : (r: Request) => void): void;
  unlisten(): void;
}

/**
 * A waiting tab of the owner on the page's origin when the tier keeps warm
 * pages and the task brings nothing of its own into the context (cookies,
 * headers, a location, a proxy, or a screenshot or PDF, which load images);
 * otherwise a fresh context: the profile, the task's settings, cookies, the
 * request filter, and one page.
 */
async function openTab(deps: PageLoaderDeps, req: PageRequest, options: BrowserOptions | undefined): Promise<Tab> {
  const origin = new URL(req.url).origin;
  const plain =
    deps.warmPages !== undefined &&
    req.owner !== undefined &&
    Object.keys(req.cookies).length === 0 &&
    Object.keys(req.headers).length === 0 &&
    !req.location &&
    !req.proxyUrl &&
    options?.screenshot !== true &&
    options?.generatePdf !== true;
  const key = plain ? warmKey(req.owner!, origin) : null;
  const kept = key ? await deps.warmPages!.take(key) : undefined;
  if (kept) {
    kept.uses++;
    return tabOf(kept.context, kept.page, kept);
  }
  const browser = await deps.browser();
  const locale = req.location?.locale ?? DEFAULT_LOCALE;
  const context = await browser.newContext({ ...contextOptions(deps.profile.context(browser.version(), locale), req), serviceWorkers: 'block', acceptDownloads: false });
  try {
    if (deps.profile.initScript) await context.addInitScript(deps.profile.initScript);
    const cookies = Object.entries(req.cookies);
    if (cookies.length > 0) await context.addCookies(cookies.map(([name, value]) => ({ name, value, url: req.url })));
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    if (deps.profile.preparePage) await deps.profile.preparePage(cdp, browser.version(), locale);
    await installRequestFilter(cdp, { loadImages: options?.screenshot === true, originHeaders: { origin, headers: req.headers } });
    return tabOf(context, page, key ? { key, origin, context, page, cdp, uses: 1 } : null);
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

function tabOf(context: BrowserContext, page: Page, warm: WarmPage | null): Tab {
  const added: Array<[string, (arg: never) => void]> = [];
  return {
    context,
    page,
    warm,
    listen(event, listener) {
      page.on(event as 'response', listener as (r: Response) => void);
      added.push([event, listener as (arg: never) => void]);
    },
    unlisten() {
      for (const [event, listener] of added.splice(0)) page.off(event as 'response', listener as (r: Response) => void);
    },
  };
}

/**
 * The profile's context with the attempt's own settings: the location's
 * time zone and geolocation (the profile has its locale), and the attempt's guarded proxy when it
 * goes through an upstream proxy. (The caller's headers go only to the
 * target's origin, through the request filter.)
 */
function contextOptions(profile: BrowserContextOptions, req: PageRequest): BrowserContextOptions {
  const location = req.location;
  return {
    ...profile,
    ...(location
      ? { timezoneId: location.timezone, geolocation: { latitude: location.latitude, longitude: location.longitude }, permissions: ['geolocation'] }
      : {}),
    ...(req.proxyUrl ? { proxy: { server: req.proxyUrl } } : {}),
  };
}

/** The screenshot (the full page, PNG) and PDF (print layout with backgrounds) the caller asked for, kept and linked. */
async function captureArtifacts(deps: PageLoaderDeps, page: Page, options: BrowserOptions | undefined): Promise<{ screenshotUrl?: string; pdfUrl?: string }> {
  const [screenshotUrl, pdfUrl] = await Promise.all([
    options?.screenshot ? page.screenshot({ fullPage: true, type: 'png' }).then((png) => deps.saveArtifact(png, 'png')) : undefined,
    options?.generatePdf ? page.pdf({ printBackground: true }).then((pdf) => deps.saveArtifact(pdf, 'pdf')) : undefined,
  ]);
  return { ...(screenshotUrl ? { screenshotUrl } : {}), ...(pdfUrl ? { pdfUrl } : {}) };
}

/** A URL the browser's connection through the guarded proxy failed for: URL_NOT_ALLOWED when the guard refuses it, else unreachable. */
async function unreachable(failedUrl: string, guard: GuardOptions): Promise<Omit<FetchFailure, 'kind' | 'timings'>> {
  let parsed: URL | null = null;
  try {
    parsed = new URL(failedUrl);
  } catch {
    // Judged as not allowed below.
  }
  if (!parsed || !(await isUrlAllowedNow(parsed, guard))) {
    return { code: 'URL_NOT_ALLOWED', message: `The page or a redirect from it leads to ${failedUrl}, which is not a public internet address`, escalate: false };
  }
  return { code: 'NETWORK_ERROR', message: `${parsed.host} cannot be reached`, escalate: false };
}

/**
 * Why a navigation failed. A connection the proxy refused is told apart from
 * an unreachable host by judging the URL that failed again, as the proxy
 * did: a redirect to an internal address is URL_NOT_ALLOWED.
 */
async function navigationFailure(err: unknown, failedUrl: string, guard: GuardOptions): Promise<Omit<FetchFailure, 'kind' | 'timings'>> {
  const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  if (PROXY_REFUSAL.test(message)) return unreachable(failedUrl, guard);
  if (/Timeout/i.test(message)) return { code: 'TIMEOUT', message: `The page did not finish loading in time (${message})`, escalate: false };
  if (/ERR_NAME_NOT_RESOLVED|ERR_CONNECTION_REFUSED|ERR_ADDRESS_UNREACHABLE/.test(message)) return { code: 'NETWORK_ERROR', message, escalate: false };
  if (/ERR_TOO_MANY_REDIRECTS/.test(message)) return { code: 'NETWORK_ERROR', message: 'The target redirects in a loop', escalate: false };
  // A response the browser downloads instead of showing (an archive, a binary) is no page: the HTTP tiers answer it 415 too.
  if (/Download is starting/i.test(message)) {
    return { code: 'UNSUPPORTED_CONTENT_TYPE', message: 'The URL answered a file the browser downloads rather than a page or a document', escalate: false };
  }
  return { code: 'NETWORK_ERROR', message, escalate: false };
}
