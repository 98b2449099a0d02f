import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Impit, type Browser, type HttpMethod } from 'impit';
import type { HttpTransport } from '../fetching/http-fetcher.js';
import { UrlNotAllowedError } from '../../common/ssrf-guard.js';

/**
 * impit's errors name the SOCKS reply in their text; the ones the fetcher
 * classifies get the error (or system code) it knows.
 */
function translateError(err: unknown, url: URL): unknown {
  const text = err instanceof Error ? err.message : String(err);
  if (/ConnectionNotAllowed/.test(text)) return new UrlNotAllowedError(`The host ${url.hostname} is not allowed: it is not a public internet address`, url.hostname);
  const code = /ConnectionRefused/.test(text) ? 'ECONNREFUSED' : /HostUnreachable/.test(text) ? 'EHOSTUNREACH' : /NetworkUnreachable/.test(text) ? 'ENETUNREACH' : undefined;
  if (!code) return err;
  const translated: NodeJS.ErrnoException = new Error(text.split('\n')[0]);
  translated.code = code;
  return translated;
}

/** How much later than the fetch's deadline impit's own timeout falls, so the deadline (TIMEOUT) always comes first. */
const TIMEOUT_MARGIN_MS = 1_000;

/**
 * Tier 2's client: impit with a real browser's TLS ClientHello, HTTP/2
 * settings and ordered header set (client hints, Sec-Fetch-*, Accept-Language),
 * connecting only through the guarded SOCKS proxy. Redirects are left to
 * the fetcher, which checks every hop before it is requested.
 */
export function createImpitTransport(opts: { browser: Browser; proxyUrl: string }): HttpTransport {
  // socks5h: the proxy resolves names, so the guard judges the address that is dialled.
  const impit = new Impit({ browser: opts.browser, proxyUrl: opts.proxyUrl.replace(/^socks5:/, 'socks5h:'), followRedirects: false });
  return {
    async send(url, init) {
      const res = await impit
        .fetch(url.href, {
          method: init.method as HttpMethod,
          headers: init.headers,
          ...(init.body === undefined ? {} : { body: init.body }),
          signal: init.signal,
          // impit's own bound (30 s unless told) would end a longer fetch before its deadline; the signal ends it then.
          timeout: init.timeoutMs + TIMEOUT_MARGIN_MS,
          redirect: 'manual',
        })
        .catch((err: unknown) => {
          throw translateError(err, url);
        });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { statusCode: res.status, headers, body: Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), decoded: true };
    },
  };
}
