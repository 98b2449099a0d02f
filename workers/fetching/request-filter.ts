import type { CDPSession } from 'playwright-core';

// The DevTools protocol's types as playwright-core declares them (its protocol module is not exported by name).
declare const session: CDPSession;
type FetchEnable = NonNullable<Parameters<typeof session.send<'Fetch.enable'>>[1]>;
type RequestPattern = NonNullable<FetchEnable['patterns']>[number];
type ResourceType = NonNullable<RequestPattern['resourceType']>;
type HeaderEntry = NonNullable<NonNullable<Parameters<typeof session.send<'Fetch.continueRequest'>>[1]>['headers']>[number];

/**
 * Which of a page's requests the browser makes. Fonts, media, beacons and
 * trackers never change the text a page converts to, so they are refused;
 * images only matter to a screenshot. The caller's headers go to the target's
 * origin only.
 *
 * The filter runs in Chromium: the tab asks the DevTools Fetch domain to
 * pause only the requests it may refuse or change (by resource type and URL
 * pattern), and every other request (the documents, scripts, styles and
 * data the page is made of) goes out without a round trip to this process.
 * It is no SSRF guard: every connection the browser opens, redirects and
 * sub-resources included, goes through the guarded SOCKS proxy, which judges
 * the address each name resolves to.
 */
const SKIPPED_TYPES: readonly ResourceType[] = ['Font', 'Media', 'Ping', 'CSPViolationReport'];

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
  /** Images are loaded only for a screenshot. */
  loadImages: boolean;
  /** The caller's request headers, added to the requests to the target's origin only (never to third parties). */
  originHeaders?: { origin: string; headers: Record<string, string> };
}

/** What becomes of one paused request. */
export type RequestDecision = { kind: 'block' } | { kind: 'continue' } | { kind: 'headers'; headers: HeaderEntry[] };

/** The requests Chromium pauses for the filter: every one the filter may refuse or change, and no other. */
function pausedRequests(opts: RequestFilterOptions): RequestPattern[] {
  const types: ResourceType[] = opts.loadImages ? [...SKIPPED_TYPES] : [...SKIPPED_TYPES, 'Image'];
  const own = callerHeaders(opts);
  return [
    ...types.map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' as const })),
    ...TRACKER_HOSTS.flatMap((host) => [`*://${host}/*`, `*://*.${host}/*`]).map((urlPattern) => ({ urlPattern, requestStage: 'Request' as const })),
    ...(own ? [{ urlPattern: `${wildcardEscape(own.origin)}/*`, requestStage: 'Request' as const }] : []),
  ];
}

/** The filter's verdict on a request Chromium paused. */
export function decideRequest(request: { url: string; headers: Record<string, string>; resourceType: ResourceType }, opts: RequestFilterOptions): RequestDecision {
  const { url, resourceType } = request;
  if (url.startsWith('data:') || url.startsWith('blob:')) return { kind: 'continue' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'block' };
  }
  if (SKIPPED_TYPES.includes(resourceType) || (resourceType === 'Image' && !opts.loadImages) || isTrackerHost(parsed.hostname)) return { kind: 'block' };
  const own = callerHeaders(opts);
  if (own && parsed.origin === own.origin) {
    const ownNames = new Set(Object.keys(own.headers).map((name) => name.toLowerCase()));
    const kept = Object.entries(request.headers).filter(([name]) => !ownNames.has(name.toLowerCase()));
    return { kind: 'headers', headers: [...kept, ...Object.entries(own.headers)].map(([name, value]) => ({ name, value })) };
  }
  return { kind: 'continue' };
}

/**
 * Installs the filter on a tab's DevTools session. (Chromium applies it to
 * the tab's own frames; a cross-site iframe runs in a renderer of its own,
 * whose requests the proxy still judges but the filter does not thin.)
 */
export async function installRequestFilter(cdp: CDPSession, opts: RequestFilterOptions): Promise<void> {
  cdp.on('Fetch.requestPaused', (event) => {
    const decision = decideRequest({ url: event.request.url, headers: event.request.headers, resourceType: event.resourceType }, opts);
    const sent =
      decision.kind === 'block'
        ? cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
        : cdp.send('Fetch.continueRequest', { requestId: event.requestId, ...(decision.kind === 'headers' ? { headers: decision.headers } : {}) });
    // The tab may close while a request waits; nothing is left to answer then.
    sent.catch(() => undefined);
  });
  await cdp.send('Fetch.enable', { patterns: pausedRequests(opts) });
}

/** The caller's headers for the target's origin, when there are any. */
function callerHeaders(opts: RequestFilterOptions): RequestFilterOptions['originHeaders'] | undefined {
  const own = opts.originHeaders;
  return own && Object.keys(own.headers).length > 0 ? own : undefined;
}

/** A Fetch URL pattern matching `text` literally ('*', '?' and '\' escaped). */
function wildcardEscape(text: string): string {
  return text.replace(/[*?\\]/g, (c) => `\\${c}`);
}
