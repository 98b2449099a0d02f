/**
 * The limit headers of SPEC 8.3: the control plane sets them on the answer
 * of every API-key call, the gateway copies them to the HTTP response, and
 * the OpenAPI document describes them from here. Between the two processes
 * they travel together in one header (LIMITS_CARRIER).
 */
export const KEY_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests per minute this API key may make at its balance tier (writes count twice)', type: 'integer' },
  'X-RateLimit-Remaining': { description: 'Requests left in the per-minute allowance after this one', type: 'integer' },
  'X-RateLimit-Reset': { description: 'Unix timestamp (seconds) at which the per-minute allowance is whole again', type: 'integer' },
  'X-Concurrency-Limit': { description: 'Calls this API key may have in progress at once', type: 'integer' },
  'X-Concurrency-Current': { description: 'Calls of this API key in progress, this one included', type: 'integer' },
} as const;

/** On routes that dispatch jobs (scrape; crawl and batch): the account's admissions per minute. */
export const DISPATCH_LIMIT_HEADERS = {
  'X-Dispatch-Entitlement-Limit': { description: 'Jobs the account may dispatch per minute at its balance tier', type: 'integer' },
  'X-Dispatch-Entitlement-Remaining': { description: 'Jobs the account may still dispatch in the current minute', type: 'integer' },
  'X-Dispatch-Entitlement-Reset': { description: 'Unix timestamp (seconds) at which the dispatch allowance is whole again', type: 'integer' },
} as const;

/** Seconds to wait, on a 429. */
export const RETRY_AFTER = 'Retry-After';

/** Every header above, lower-cased as they travel between the processes. */
export const LIMIT_HEADER_NAMES: readonly string[] = [...Object.keys(KEY_LIMIT_HEADERS), ...Object.keys(DISPATCH_LIMIT_HEADERS), RETRY_AFTER].map((h) =>
  h.toLowerCase(),
);

/** The public request's HTTP method, as the gateway forwards it to the control plane: writes cost two tokens (SPEC 8.1). */
export const HTTP_METHOD_HEADER = 'x-trawl-http-method';

/**
 * The one header the limit headers travel in from the control plane to the
 * gateway, as `name=value` pairs joined by `&` (names and values are tokens
 * and integers): one header to encode, send and decode instead of up to nine.
 */
export const LIMITS_CARRIER = 'trawl-limits';

const KNOWN: ReadonlySet<string> = new Set(LIMIT_HEADER_NAMES);

/** Adds limit headers (lower-case names) to those an answer already carries. */
export function addLimitHeaders(headers: Headers, values: Readonly<Record<string, string>>): void {
  let packed = '';
  for (const name in values) packed += `${packed ? '&' : ''}${name}=${values[name]}`;
  if (!packed) return;
  const carried = headers.get(LIMITS_CARRIER);
  headers.set(LIMITS_CARRIER, carried ? `${carried}&${packed}` : packed);
}

/** The limit headers an answer carries, by lower-case name (a later value of a name wins); unknown names are dropped. */
export function readLimitHeaders(headers: Headers): Record<string, string> {
  const carried = headers.get(LIMITS_CARRIER);
  const out: Record<string, string> = {};
  if (!carried) return out;
  for (const pair of carried.split('&')) {
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    if (eq > 0 && KNOWN.has(name)) out[name] = pair.slice(eq + 1);
  }
  return out;
}
