/**
 * URL normalisation for discovery: two spellings of one page become one
 * string, so the frontier and the map hold each page once.
 *
 * WHATWG parsing (`new URL`) already lower-cases the scheme and host, turns
 * international hosts into punycode, drops default ports and resolves `.` and
 * `..` segments. On top of that: the fragment is dropped; percent-escapes get
 * upper-case hex, and escapes of unreserved characters (letters, digits,
 * `-._~`) are decoded (RFC 3986 section 6.2.2); a trailing dot of the host
 * is removed; tracking parameters are removed and the other parameters sorted
 * by name (both optional); a trailing slash can be kept, stripped or added.
 * Query values are never re-encoded: `a=b,c` and `a=b%2Cc` stay different,
 * as a server may tell them apart.
 */

export type TrailingSlash = 'keep' | 'strip' | 'add';

export interface UrlNormalizationOptions {
  /** What to do with a slash ending a non-root path (default `keep`). */
  trailingSlash?: TrailingSlash;
  /** Sort query parameters by name, keeping the order of repeated names (default true). */
  sortQuery?: boolean;
  /** Remove {@link TRACKING_PARAMETERS} from the query (default true). */
  removeTracking?: boolean;
  /** More parameter names (exact, case-insensitive) to remove. */
  extraTrackingParameters?: readonly string[];
}

/** Parameters that only attribute a visit; names ending in `*` are prefixes. */
export const TRACKING_PARAMETERS: readonly string[] = [
  'utm_*',
  'fbclid',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'igshid',
  'li_fat_id',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
];

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Upper-cases escape hex and decodes escapes of unreserved characters. */
export function normalisePercentEncoding(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

function isTracking(name: string, extra: readonly string[]): boolean {
  const lower = name.toLowerCase();
  return (
    TRACKING_PARAMETERS.some((p) => (p.endsWith('*') ? lower.startsWith(p.slice(0, -1)) : lower === p)) ||
    extra.some((p) => p.toLowerCase() === lower)
  );
}

function parameterName(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = eq === -1 ? pair : pair.slice(0, eq);
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

function normaliseQuery(search: string, options: UrlNormalizationOptions): string {
  if (search.length <= 1) return '';
  const extra = options.extraTrackingParameters ?? [];
  let pairs = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => ({ pair: normalisePercentEncoding(pair), name: parameterName(pair) }));
  if (options.removeTracking !== false) pairs = pairs.filter((p) => !isTracking(p.name, extra));
  // Array.prototype.sort is stable, so repeated names keep their order.
  if (options.sortQuery !== false) pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return pairs.length ? `?${pairs.map((p) => p.pair).join('&')}` : '';
}

function normalisePath(pathname: string, trailingSlash: TrailingSlash): string {
  let path = normalisePercentEncoding(pathname) || '/';
  if (path === '/') return path;
  // The run of slashes is matched from its first one only: tried from every slash, a long run read to its end each time.
  if (trailingSlash === 'strip') path = path.replace(/(?<!\/)\/+$/, '') || '/';
  else if (trailingSlash === 'add' && !path.endsWith('/')) path += '/';
  return path;
}

/**
 * The normal form of an http(s) URL, resolved against `base` when relative;
 * null for anything else (other schemes, unparsable input).
 */
export function normalizeUrl(input: string, base?: string, options: UrlNormalizationOptions = {}): string | null {
  let url: URL;
  try {
    url = new URL(input.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  const port = url.port ? `:${url.port}` : '';
  return `${url.protocol}//${auth}${host}${port}${normalisePath(url.pathname, options.trailingSlash ?? 'keep')}${normaliseQuery(url.search, options)}`;
}

/**
 * A set of URLs compared by their normal form: `add` answers whether the URL
 * was new, so a frontier can enqueue exactly the URLs it has not seen.
 */
export class NormalizedUrlSet {
  private readonly seen = new Set<string>();

  constructor(private readonly options: UrlNormalizationOptions = {}) {}

  /** The normal form when the URL is new (and now recorded); null when seen before or not an http(s) URL. */
  add(url: string, base?: string): string | null {
    const key = normalizeUrl(url, base, this.options);
    if (key === null || this.seen.has(key)) return null;
    this.seen.add(key);
    return key;
  }

  has(url: string, base?: string): boolean {
    const key = normalizeUrl(url, base, this.options);
    return key !== null && this.seen.has(key);
  }

  get size(): number {
    return this.seen.size;
  }

  values(): IterableIterator<string> {
    return this.seen.values();
  }
}
