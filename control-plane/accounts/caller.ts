import { createContextKey, type ContextValues, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import type { DescMethod } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import { withResponseHeaders } from '../../common/rpc-errors.js';
import type { Authenticator } from './authenticator.js';
import type { SessionAuthenticator } from './session-authenticator.js';

/**
 * Which credential a control-plane method takes: none, an API key
 * (`x-api-key`), a dashboard session token (`authorization: Bearer`), or
 * either of the two.
 */
export type CallAuth = 'none' | 'api_key' | 'session' | 'either';

/** Who a call acts for, as the authentication interceptor resolved it. */
export interface Caller {
  /** The account the call acts on: the key's, the user's own, or the organization's named in X-Organization-Id. */
  accountId: string;
  credential: 'api_key' | 'session';
  /** The API key presented; null for session calls. */
  keyId: string | null;
  /** The logged-in user; null for API-key calls. */
  userId: string | null;
  /** The key's environment; null for session calls. */
  environment: 'live' | 'test' | null;
  role: 'user' | 'admin';
  /** The organization named in X-Organization-Id, once checked; null without the header. */
  organizationId: string | null;
  scopes: string[];
}

const callerKey = createContextKey<Caller | undefined>(undefined, { description: 'authenticated caller' });

/** The caller the authentication interceptor resolved, if any: what later interceptors read. */
export function findCaller(values: ContextValues): Caller | undefined {
  return values.get(callerKey);
}

/** The caller of an authenticated method. */
export function callerOf(ctx: HandlerContext): Caller {
  const caller = findCaller(ctx.values);
  if (!caller) throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
  return caller;
}

/** The caller of a method that only session tokens reach: with its user. */
export function sessionCallerOf(ctx: HandlerContext): Caller & { userId: string } {
  const caller = callerOf(ctx);
  if (caller.userId === null) throw new TrawlError('INVALID_SESSION_TOKEN', 'This route takes a session token as Authorization: Bearer <token>');
  return caller as Caller & { userId: string };
}

/**
 * Refuses callers without the admin role, by key or by session alike, with
 * 403 FORBIDDEN: admin routes are listed in the public reference, so a 404
 * would hide nothing (docs/api.md, Administrators).
 */
export function requireAdmin(caller: Caller): void {
  if (caller.role !== 'admin') throw new TrawlError('FORBIDDEN', 'This route is for administrators');
}

export interface AuthenticationOptions {
  authenticator: Authenticator;
  sessions: SessionAuthenticator;
  /** The credential each method takes; methods not listed take an API key. */
  methodAuth: ReadonlyMap<DescMethod, CallAuth>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Authenticates every call with the credential its method takes, scopes it
 * to the organization in `x-organization-id`, hands the caller to the service
 * through the call's context values, and names the account and key in the
 * response headers, of a failed call too (the gateway's request log reads them).
 */
export function authenticationInterceptor(opts: AuthenticationOptions): Interceptor {
  return (next) => async (req) => {
    const auth = opts.methodAuth.get(req.method) ?? 'api_key';
    if (auth === 'none') return next(req);
    const apiKey = req.header.get('x-api-key');
    const bearer = BEARER.exec(req.header.get('authorization') ?? '')?.[1];
    const organizationId = req.header.get('x-organization-id') || null;
    let caller: Caller;
    if (auth !== 'session' && (apiKey || auth === 'api_key' || !bearer)) {
      const key = await opts.authenticator.authenticate(apiKey);
      caller = {
        accountId: key.accountId,
        credential: 'api_key',
        keyId: key.keyId,
        userId: null,
        environment: key.environment,
        role: key.role,
        organizationId: null,
        scopes: key.scopes,
      };
      if (organizationId) caller = await opts.sessions.scopeKeyToOrganization(caller, organizationId);
    } else {
      if (!bearer) throw new TrawlError('INVALID_SESSION_TOKEN', 'This route takes a session token as Authorization: Bearer <token>');
      caller = await opts.sessions.authenticate(bearer, organizationId);
    }
    req.contextValues.set(callerKey, caller);
    const headers: Record<string, string> = { 'trawl-account-id': caller.accountId, ...(caller.keyId ? { 'trawl-api-key-id': caller.keyId } : {}) };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      // A refused call is logged against its account and key too.
      throw withResponseHeaders(err, headers);
    }
    for (const [name, value] of Object.entries(headers)) res.header.set(name, value);
    return res;
  };
}
