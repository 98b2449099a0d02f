import { request, type Dispatcher } from 'undici';
import { WEBHOOK_TIMEOUT_MS } from '../../common/limits.js';
import { assertUrlAllowed, isUrlNotAllowedError, type GuardOptions } from '../../common/ssrf-guard.js';

export interface DeliveryRequest {
  url: string;
  body: Uint8Array;
  headers: Record<string, string>;
}

export interface DeliveryOutcome {
  success: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  error: string | null;
}

export interface SendDeps {
  guard: GuardOptions;
  /** The guarded dispatcher (common/ssrf-guard.ts): every connection is checked after DNS. */
  dispatcher: Dispatcher;
  timeoutMs?: number;
}

/** A short, safe description of why a request failed: never an address a name resolved to. */
function describe(err: unknown, timeoutMs: number): string {
  if (isUrlNotAllowedError(err)) return err.message;
  const cause = (err as { cause?: unknown }).cause;
  if (isUrlNotAllowedError(cause)) return cause.message;
  const name = (err as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError' || /timeout/i.test(String((err as { code?: string }).code ?? ''))) {
    return `No answer within ${timeoutMs / 1000} seconds`;
  }
  const code = (err as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
  return code ? `Connection failed (${code})` : `Connection failed: ${(err as Error).message ?? String(err)}`;
}

/**
 * POSTs one delivery (SPEC 6.4): HTTPS only, every connection through the
 * SSRF guard, certificates verified (a private CA is trusted through
 * NODE_EXTRA_CA_CERTS), redirects not followed (a 3xx is a failure), and a 2xx
 * answer within the timeout (10 s, the response body included) is the only
 * success.
 */
export async function sendDelivery(deps: SendDeps, delivery: DeliveryRequest): Promise<DeliveryOutcome> {
  const timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(delivery.url);
    if (url.protocol !== 'https:') return { success: false, statusCode: null, responseTimeMs: 0, error: 'Webhook URLs must use HTTPS' };
    assertUrlAllowed(url, deps.guard);
  } catch (err) {
    return { success: false, statusCode: null, responseTimeMs: 0, error: describe(err, timeoutMs) };
  }
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(url, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
      dispatcher: deps.dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    // The answer counts once it is read in full within the time allowed; its content is not kept.
    await res.body.dump({ limit: 64 * 1024, signal });
    const success = res.statusCode >= 200 && res.statusCode < 300;
    return {
      success,
      statusCode: res.statusCode,
      responseTimeMs: elapsed(),
      error: success ? null : res.statusCode >= 300 && res.statusCode < 400 ? `Redirect (${res.statusCode}) not followed` : `Answered ${res.statusCode}`,
    };
  } catch (err) {
    return { success: false, statusCode: null, responseTimeMs: elapsed(), error: describe(err, timeoutMs) };
  }
}
