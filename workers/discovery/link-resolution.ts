/**
 * A found link as an absolute http(s) URL without its fragment, resolved
 * against the page's base URL, remembered per process. Pages of a site repeat
 * the same links (navigation, footers, sidebars) and a crawl reads hundreds of
 * them a page; each distinct link is resolved by the URL parser once.
 *
 * What is remembered is keyed by the part of the base the result depends on:
 * nothing for an `http://` or `https://` address, the base's origin for a
 * path from the root (`/docs/`) or from the scheme (`//cdn.example/`), the
 * base's directory for anything else, and the whole base for a query alone
 * (`?page=2`). The answer is the URL parser's either way.
 */

/** Distinct links remembered at a time; the memory is emptied when it is full. */
const RESOLVED_LIMIT = 20_000;
const resolved = new Map<string, string | null>();

const ABSOLUTE_HTTP = /^https?:\/\//i;

/** The parts of a base URL that relative links depend on. */
export interface LinkBase {
  href: string;
  /** Scheme, credentials and host: everything before the path. */
  origin: string;
  /** The origin and the path up to its last `/`. */
  directory: string;
}

/** A base URL (resolved against `relativeTo` when given) split for `resolveFoundLink`; null when it does not parse. */
export function linkBase(base: string, relativeTo?: string): LinkBase | null {
  let url: URL;
  try {
    url = new URL(base, relativeTo);
  } catch {
    return null;
  }
  const { href, pathname } = url;
  const origin = href.slice(0, href.length - pathname.length - url.search.length - url.hash.length);
  return { href, origin, directory: origin + pathname.slice(0, pathname.lastIndexOf('/') + 1) };
}

function parse(href: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url.href;
}

/**
 * The key with characters of its own. An href is a slice of the page's text, and the key joins it to its scope
 * without copying, so a remembered key would keep the page's text alive (measured: most of what the pipeline
 * thread promoted out of V8's young generation). Reading a joined string by index makes V8 copy it into one
 * flat string in place, which lets go of the page.
 */
function ownCharacters(key: string): string {
  key.charCodeAt(0);
  return key;
}

/** The absolute http(s) URL without fragment, or null for links discovery ignores (empty or `#…` only, other schemes, unparsable). */
export function resolveFoundLink(href: string, base: LinkBase): string | null {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#')) return null;
  const first = trimmed.charCodeAt(0);
  const scope = ABSOLUTE_HTTP.test(trimmed)
    ? ''
    : first === 0x2f || first === 0x5c // '/' or '\': from the root or the scheme
      ? base.origin
      : first === 0x3f // '?'
        ? base.href
        : base.directory;
  const key = `${scope}\n${trimmed}`;
  let url = resolved.get(key);
  if (url === undefined) {
    url = parse(trimmed, base.href);
    if (resolved.size >= RESOLVED_LIMIT) resolved.clear();
    resolved.set(ownCharacters(key), url);
  }
  return url;
}
