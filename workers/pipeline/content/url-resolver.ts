/**
 * Makes link and image addresses absolute against the page URL and the
 * page's `<base href>` (itself resolved against the page URL), as a browser
 * does.
 */
export interface UrlResolver {
  /** The absolute address, or '' for a script URL or one that cannot be parsed. */
  resolve(href: string): string;
}

const SCRIPT_URL = /^\s*(?:javascript|vbscript|data:text\/html)/i;
const ABSOLUTE_HTTP = /^https?:\/\/[^\s<>"]+$/i;

export function createUrlResolver(pageUrl: string, baseHref: string): UrlResolver {
  let base: URL | null = null;
  try {
    base = new URL(pageUrl);
  } catch {
    base = null;
  }
  if (baseHref) {
    try {
      base = new URL(baseHref.trim(), base ?? undefined);
    } catch {
      // An unusable <base href> is ignored, as browsers do.
    }
  }
  const cache = new Map<string, string>();
  return {
    resolve(href: string): string {
      const cached = cache.get(href);
      if (cached !== undefined) return cached;
      let result = '';
      const trimmed = href.trim();
      if (trimmed !== '' && !SCRIPT_URL.test(trimmed)) {
        if (base === null && ABSOLUTE_HTTP.test(trimmed)) result = trimmed;
        else {
          try {
            result = new URL(trimmed, base ?? undefined).href;
          } catch {
            result = base === null ? trimmed : '';
          }
        }
      }
      cache.set(href, result);
      return result;
    },
  };
}
