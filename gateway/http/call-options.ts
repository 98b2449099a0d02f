import type { CallOptions } from '@connectrpc/connect';
import type { Context } from 'koa';
import { SYNC_DEADLINE_MS } from '../../common/limits.js';
import { HTTP_METHOD_HEADER, readLimitHeaders } from '../../common/rate-limit-headers.js';
import type { RequestState } from './request-context.js';

/** What is left of the sync safe deadline (SPEC 4.1) for a request, counted from its arrival; never negative. */
export function syncTimeLeftMs(state: RequestState): number {
  return Math.max(0, SYNC_DEADLINE_MS - (Date.now() - state.startedAt));
}

/** The SPEC 8.3 limit headers the control plane answered a call with (or failed it with), passed on to the client. */
export function copyLimitHeaders(ctx: Context, headers: Headers): void {
  const limits = readLimitHeaders(headers);
  for (const name in limits) ctx.set(name, limits[name]!);
}

/** What the control plane answered a call with, or failed it with: the account and key for the request log, and the limit headers. */
export function readAnswerHeaders(ctx: Context, headers: Headers): void {
  const state = ctx.state.trawl;
  const account = headers.get('trawl-account-id');
  const apiKey = headers.get('trawl-api-key-id');
  if (account) state.accountId = account;
  if (apiKey) state.apiKeyId = apiKey;
  copyLimitHeaders(ctx, headers);
}

/**
 * Options for a control-plane call on behalf of a public request: the
 * credential travels as a header, and the account the control plane resolved
 * comes back in response headers for the request log.
 */
export function callOptions(ctx: Context, timeoutMs: number): CallOptions {
  const state = ctx.state.trawl;
  const headers: Record<string, string> = { 'x-request-id': state.requestId, [HTTP_METHOD_HEADER]: ctx.method };
  const key = ctx.req.headers['x-api-key'];
  if (typeof key === 'string' && key) headers['x-api-key'] = key;
  const authorization = ctx.req.headers.authorization;
  if (authorization) headers['authorization'] = authorization;
  const organization = ctx.req.headers['x-organization-id'];
  if (typeof organization === 'string' && organization) headers['x-organization-id'] = organization;
  // The address the gateway resolved, never one a client sent: sign-ups read it to find sibling accounts.
  if (state.clientIp) headers['x-trawl-client-ip'] = state.clientIp;
  return {
    timeoutMs,
    headers,
    onHeader(h) {
      readAnswerHeaders(ctx, h);
    },
  };
}
