/**
 * Request headers the fetchers never take from their callers: connection
 * management and framing belong to the client, and accept-encoding must name
 * only what the body reader decodes.
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
]);

/**
 * What a scrape request's `headers` may not hold: the reserved headers, the
 * proxy headers (the proxy route's own), and Cookie (advanced.cookies sends
 * cookies to the target's origin only).
 */
export const REFUSED_CALLER_HEADERS: ReadonlySet<string> = new Set([...RESERVED_REQUEST_HEADERS, 'proxy-authorization', 'proxy-authenticate', 'cookie']);

/** Header names are HTTP tokens (RFC 9110 5.1); values hold no line breaks or other control characters. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/;
export const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]{0,8192}$/;

/** The most a request's own headers may hold in all (SPEC 8.4: custom headers at most 32 KB), as written on the wire. */
export const MAX_CUSTOM_HEADERS_BYTES = 32 * 1024;

/** The bytes a header map takes on the wire: `name: value` and a line break for each. */
export function headersBytes(headers: Record<string, string>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8') + 4;
  return bytes;
}
