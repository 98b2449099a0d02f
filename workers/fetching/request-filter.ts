import type { Route } from 'playwright-core';
import { assertUrlAllowed, isUrlNotAllowedError, type GuardOptions } from '../../common/ssrf-guard.js';

/**
 * Which of a page's requests the browser makes. Fonts, media and trackers
 * never change the text a page converts to, so they are refused; images only
 * matter to a screenshot. Every URL passes the SSRF guard's URL check here
 * (scheme, IP literals, names of the local machine); the address a name
 * resolves to is judged by the guarded SOCKS proxy every connection goes
 * through, which also covers redirects, which Playwright does not route.
 */
const SKIPPED_TYPES: ReadonlySet<string> = new Set(['font', 'media', 'beacon', 'csp_report', 'ping', 'manifest']);

/** Hosts (and their subdomains) that only measure or advertise. */
const TRACKER_HOSTS = [
  'google-analytics.com',
  'googletagmanager.com',
  'googlesyndication.com',
  'doubleclick.net',
  'connect.facebook.net',
  'hotjar.com',
  'segment.io',
  'segment.com',
  'mixpanel.com',
  'amplitude.com',
  'clarity.ms',
  'scorecardresearch.com',
  'quantserve.com',
  'adnxs.com',
  'criteo.com',
  'taboola.com',
  'outbrain.com',
  'newrelic.com',
  'nr-data.net',
  'fullstory.com',
];

export function isTrackerHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return TRACKER_HOSTS.some((t) => host === t || host.endsWith(`.${t}`));
}

export interface RequestFilterOptions {
  guard: GuardOptions;
  /** Images are loaded only for a screenshot. */
  loadImages: boolean;
  /** Told of a URL the guard refused. */
  onRefused(url: string, isNavigation: boolean): void;
  /** The caller's request headers, added to the requests to the target's origin only (never to third parties). */
  originHeaders?: { origin: string; headers: Record<string, string> };
}

/** The route handler every context installs for all its requests. */
export function createRequestFilter(opts: RequestFilterOptions): (route: Route) => Promise<void> {
  return async (route) => {
    const request = route.request();
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    let parsed: URL;
    try {
      parsed = new URL(url);
      assertUrlAllowed(parsed, opts.guard);
    } catch (err) {
      if (isUrlNotAllowedError(err) || err instanceof TypeError) opts.onRefused(url, request.isNavigationRequest());
      return route.abort('blockedbyclient');
    }
    const type = request.resourceType();
    if (SKIPPED_TYPES.has(type) || (type === 'image' && !opts.loadImages) || isTrackerHost(parsed.hostname)) {
      return route.abort('blockedbyclient');
    }
    const own = opts.originHeaders;
    if (own && parsed.origin === own.origin && Object.keys(own.headers).length > 0) return route.continue({ headers: { ...request.headers(), ...own.headers } });
    return route.continue();
  };
}
