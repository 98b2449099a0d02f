import { fetchPage, type FetchConfig } from '../fetching/http-fetcher.js';
import type { MapFetch } from './discover.js';

/**
 * The production {@link MapFetch}: a GET through {@link fetchPage}, so every
 * hop passes the SSRF guard of `config.guard` (there is no way to turn it
 * off here), bodies are capped at `config.maxBytes` and each fetch is bounded
 * by `timeoutMs`. Any failure (network, refused address, timeout, 4xx/5xx,
 * a type fetchPage does not read) answers null; so does a non-2xx status
 * that fetchPage passes through. An aborted signal answers null at once; the
 * request itself then ends by its own timeout.
 */
export function createMapFetch(config: FetchConfig & { timeoutMs: number }): MapFetch {
  const { timeoutMs, ...fetchConfig } = config;
  return async (url, signal) => {
    if (signal.aborted) return null;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<null>((resolve) => {
      onAbort = () => resolve(null);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([fetchPage({ url, method: 'GET', timeoutMs }, fetchConfig), aborted]);
      if (outcome === null || outcome.kind !== 'ok') return null;
      if (outcome.statusCode < 200 || outcome.statusCode >= 300) return null;
      return { status: outcome.statusCode, finalUrl: outcome.finalUrl, contentType: outcome.contentType, body: outcome.body };
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  };
}
