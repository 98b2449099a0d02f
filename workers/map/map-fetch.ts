import { fetchPage, type FetchConfig } from '../fetching/http-fetcher.js';
import type { MapFetch } from './discover.js';

export type MapFetchConfig = FetchConfig & { timeoutMs: number };

/** Told of each fetch's end: what a map learns about the reachability of the site. */
export interface MapFetchObserver {
  answered?(url: string): void;
  failed?(url: string, failure: { code: string; message: string }): void;
}

/** Sitemaps may come gzipped, served under one of these types; the sitemap parser recognises gzip by its bytes. */
const GZIP_MIMES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'] as const;

/**
 * The production {@link MapFetch}: a GET through {@link fetchPage}, so every
 * hop passes the SSRF guard of `config.guard` (there is no way to turn it
 * off here), bodies are capped at `config.maxBytes` and each fetch is bounded
 * by `timeoutMs` and ends when `signal` aborts. Textual answers and gzipped
 * sitemaps are read. Any failure (network, refused address, timeout, 4xx/5xx,
 * another binary type) answers null; so does a non-2xx status that fetchPage
 * passes through.
 */
export function createMapFetch(config: MapFetchConfig, observer: MapFetchObserver = {}): MapFetch {
  const { timeoutMs, ...fetchConfig } = config;
  return async (url, signal) => {
    if (signal.aborted) return null;
    const outcome = await fetchPage({ url, method: 'GET', timeoutMs, signal, acceptMimes: GZIP_MIMES }, fetchConfig);
    if (outcome.kind !== 'ok') {
      observer.failed?.(url, { code: outcome.code, message: outcome.message });
      return null;
    }
    if (outcome.statusCode < 200 || outcome.statusCode >= 300) {
      observer.failed?.(url, { code: outcome.statusCode === 404 ? 'TARGET_NOT_FOUND' : 'TARGET_UNAVAILABLE', message: `${url} answered ${outcome.statusCode}` });
      return null;
    }
    observer.answered?.(url);
    return { status: outcome.statusCode, finalUrl: outcome.finalUrl, contentType: outcome.contentType, body: outcome.body };
  };
}
