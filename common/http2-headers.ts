import type { IncomingHttpHeaders } from 'node:http2';

/**
 * An HTTP/2 header block as web Headers, without its pseudo-headers. Given
 * `trailers`, the headers a Connect unary answer carries its trailers in
 * (`trailer-` and the name) go there, without the prefix.
 */
export function webHeaders(raw: IncomingHttpHeaders, trailers?: Headers): Headers {
  const headers = new Headers();
  for (const name in raw) {
    if (name.charCodeAt(0) === 58 /* ':' */) continue;
    const value = raw[name];
    if (value === undefined) continue;
    const trailer = trailers !== undefined && name.startsWith('trailer-');
    const target = trailer ? trailers : headers;
    const key = trailer ? name.slice(8) : name;
    if (Array.isArray(value)) for (const v of value) target.append(key, v);
    else target.append(key, value);
  }
  return headers;
}
