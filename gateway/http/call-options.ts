import type { CallOptions } from '@connectrpc/connect';
import type { Context } from 'koa';
import { SYNC_DEADLINE_MS } from '../../common/limits.js';
import type { RequestState } from './request-context.js';

/** What is left of the sync safe deadline (SPEC 4.1) for a request, counted from its arrival; never negative. */
export function syncTimeLeftMs(state: RequestState): number {
  return Math.max(0, SYNC_DEADLINE_MS - (Date.now() - state.startedAt));
}

/**
 * Options for a control-plane call on behalf of a public request: the
 * credential travels as a header, and the account the control plane resolved
 * comes back in response headers for the request log.
 */
export function callOptions(ctx: Context, timeoutMs: number): CallOptions {
  const state = ctx.state.trawl;
  const headers: Record<string, string> = { 'x-request-id': state.requestId };
  const key = ctx.req.headers['x-api-key'];
  if (typeof key === 'string' && key) headers['x-api-key'] = key;
  const authorization = ctx.req.headers.authorization;
  if (authorization) headers['authorization'] = authorization;
  const organization = ctx.req.headers['x-organization-id'];
  if (typeof organization === 'string' && organization) headers['x-organization-id'] = organization;
  return {
    timeoutMs,
    headers,
    onHeader(h) {
      const account = h.get('trawl-account-id');
      const apiKey = h.get('trawl-api-key-id');
      if (account) state.accountId = account;
      if (apiKey) state.apiKeyId = apiKey;
    },
  };
}
