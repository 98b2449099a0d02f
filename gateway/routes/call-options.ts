import type { CallOptions } from '@connectrpc/connect';
import type { Context } from 'koa';

/**
 * Options for a control-plane call on behalf of a public request: the API
 * key travels as a header, and the account the control plane resolved comes
 * back in response headers for the request log.
 */
export function callOptions(ctx: Context, timeoutMs: number): CallOptions {
  const headers: Record<string, string> = { 'x-request-id': ctx.state.trawl.requestId };
  const key = ctx.get('X-API-Key');
  if (key) headers['x-api-key'] = key;
  return {
    timeoutMs,
    headers,
    onHeader(h) {
      const account = h.get('trawl-account-id');
      const apiKey = h.get('trawl-api-key-id');
      if (account) ctx.state.trawl.accountId = account;
      if (apiKey) ctx.state.trawl.apiKeyId = apiKey;
    },
  };
}
