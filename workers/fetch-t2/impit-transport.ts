import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Impit, type Browser, type HttpMethod } from 'impit';
import type { HttpTransport } from '../fetching/http-fetcher.js';

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
      const res = await impit.fetch(url.href, {
        method: init.method as HttpMethod,
        headers: init.headers,
        ...(init.body === undefined ? {} : { body: init.body }),
        signal: init.signal,
        redirect: 'manual',
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { statusCode: res.status, headers, body: Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), decoded: true };
    },
  };
}
