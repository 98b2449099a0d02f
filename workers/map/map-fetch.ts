import { fetchPage, type FetchConfig } from '../fetching/http-fetcher.js';
import type { MapFetch } from './discover.js';

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
export function createMapFetch(config: FetchConfig & { timeoutMs: number }): MapFetch {
  const { timeoutMs, ...fetchConfig } = config;
  return async (url, signal) => {
    if (signal.aborted) return null;
    const outcome = await fetchPage({ url, method: 'GET', timeoutMs, signal, acceptMimes: GZIP_MIMES }, fetchConfig);
    if (outcome.kind !== 'ok' || outcome.statusCode < 200 || outcome.statusCode >= 300) return null;
    return { status: outcome.statusCode, finalUrl: outcome.finalUrl, contentType: outcome.contentType, body: outcome.body };
  };
}
