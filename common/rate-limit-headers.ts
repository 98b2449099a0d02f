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
 * Marks a control-plane call the gateway makes again for one public request
 * already counted (the next read of a crawl's event stream): the per-key
 * limits do not count it a second time. Only the gateway sets it.
 */
export const FOLLOW_UP_HEADER = 'x-trawl-follow-up';

/**
 * The headers the limit headers travel in from the control plane to the
 * gateway, as `name=value` pairs joined by `&` (names are tokens, values
 * integers): one header to encode, send and decode instead of up to nine.
 * The key's limits (set by the limits interceptor, also on a failed call's
 * error) and the account's dispatch entitlement (set by the handler) each
 * have their own, so that neither replaces the other on a failed call.
 */
export const LIMITS_CARRIERS = { key: 'trawl-key-limits', dispatch: 'trawl-dispatch-limits' } as const;

const KNOWN: ReadonlySet<string> = new Set(LIMIT_HEADER_NAMES);

/** Adds limit headers (lower-case names) to those the answer already carries from the same source. */
export function addLimitHeaders(headers: Headers, from: keyof typeof LIMITS_CARRIERS, values: Readonly<Record<string, string>>): void {
  let packed = '';
  for (const name in values) packed += `${packed ? '&' : ''}${name}=${values[name]}`;
  if (!packed) return;
  const carrier = LIMITS_CARRIERS[from];
  const carried = headers.get(carrier);
  headers.set(carrier, carried ? `${carried}&${packed}` : packed);
}

/**
 * The limit headers an answer carries, by lower-case name (a later value of
 * a name wins, the key's over the dispatch's); unknown names are dropped. A
 * header given twice arrives joined with a comma, and is read whole.
 */
export function readLimitHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const carrier of [LIMITS_CARRIERS.dispatch, LIMITS_CARRIERS.key]) {
    const carried = headers.get(carrier);
    if (!carried) continue;
    for (const part of carried.split(/[&,]/)) {
      const pair = part.trim();
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (eq > 0 && KNOWN.has(name)) out[name] = pair.slice(eq + 1);
    }
  }
  return out;
}
