/**
 * Request headers a caller may not set for the target (the scrape request's
 * `headers`): connection management and framing belong to the client, the
 * proxy headers to the proxy route, and accept-encoding must name only what
 * the body reader decodes. Cookies go through advanced.cookies.
 */
export const RESERVED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'accept-encoding',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'cookie',
]);

/** Header names are HTTP tokens (RFC 9110 5.1); values hold no line breaks or other control characters. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/;
export const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]{0,8192}$/;
