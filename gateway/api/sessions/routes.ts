import { z } from 'zod';
import type { StoredSession as StoredSessionMessage } from '../../../proto/gen/trawl/v1/sessions_pb.js';
import { MAX_STORED_SESSIONS } from '../../../common/limits.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { CreateSessionRequest, RefreshSessionRequest, SessionIdParam, SessionListQuery, StoredSession, StoredSessionList } from './schemas.js';

const TAGS = ['Sessions'];
const TIMEOUT_MS = 10_000;
const NOT_FOUND = "SESSION_NOT_FOUND (unknown session, or another account's)";
const INACTIVE = 'SESSION_INACTIVE (the session was deleted)';

function present(s: StoredSessionMessage) {
  return {
    session_id: s.sessionId,
    name: s.name,
    domain: s.domain,
    status: s.status as 'active' | 'expired' | 'inactive',
    cookie_names: s.cookieNames,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    expires_at: s.expiresAt ?? null,
    last_used_at: s.lastUsedAt ?? null,
  };
}

/** Stored sessions: cookies of a logged-in visit that scrapes name with advanced.session_id (docs/api.md, Stored sessions). */
export function sessionRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const sessions = deps.controlPlane.sessions;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/sessions',
      operationId: 'createSession',
      summary: 'Store the cookies of a logged-in session',
      description: `The cookies are kept encrypted and never shown again, only their names. At most ${MAX_STORED_SESSIONS} sessions per account.`,
      tags: TAGS,
      auth: 'either',
      request: { body: CreateSessionRequest },
      responses: { 201: { description: 'The session', schema: StoredSession } },
      errors: { 429: `SESSION_LIMIT_REACHED (${MAX_STORED_SESSIONS} sessions)` },
      handler: async ({ ctx, body }) => {
        const res = await sessions.createSession(
          { name: body.name, domain: body.domain, cookies: body.cookies, ...(body.expires_at ? { expiresAt: body.expires_at } : {}) },
          callOptions(ctx, TIMEOUT_MS),
        );
        ctx.status = 201;
        ctx.body = present(res);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/sessions',
      operationId: 'listSessions',
      summary: "The account's stored sessions, newest first",
      tags: TAGS,
      auth: 'either',
      request: { query: SessionListQuery },
      responses: { 200: { description: 'The sessions', schema: StoredSessionList } },
      handler: async ({ ctx, query }) => {
        const res = await sessions.listSessions({ status: query.status ?? '' }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { sessions: res.sessions.map(present), total: res.total, limit: MAX_STORED_SESSIONS };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/sessions/{session_id}',
      operationId: 'getSession',
      summary: 'One stored session',
      tags: TAGS,
      auth: 'either',
      request: { params: SessionIdParam },
      responses: { 200: { description: 'The session', schema: StoredSession } },
      errors: { 404: NOT_FOUND },
      handler: async ({ ctx, params }) => {
        ctx.body = present(await sessions.getSession({ sessionId: params.session_id }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sessions/{session_id}/refresh',
      operationId: 'refreshSession',
      summary: 'Replace the cookies or the expiry of a stored session',
      description: 'An expired session with a new expiry (or none) is active again.',
      tags: TAGS,
      auth: 'either',
      request: { params: SessionIdParam, body: RefreshSessionRequest },
      responses: { 200: { description: 'The session', schema: StoredSession } },
      errors: { 404: NOT_FOUND, 410: INACTIVE },
      handler: async ({ ctx, params, body }) => {
        const res = await sessions.refreshSession(
          {
            sessionId: params.session_id,
            cookies: body.cookies ?? {},
            // An empty string asks for no expiry; absent leaves it as it is.
            ...(body.expires_at !== undefined ? { expiresAt: body.expires_at ?? '' } : {}),
          },
          callOptions(ctx, TIMEOUT_MS),
        );
        ctx.body = present(res);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/sessions/{session_id}',
      operationId: 'deleteSession',
      summary: 'Delete a stored session',
      description: 'Its cookies are no longer used; a scrape naming it answers 410 SESSION_INACTIVE.',
      tags: TAGS,
      auth: 'either',
      request: { params: SessionIdParam },
      responses: { 204: { description: 'Deleted; no body', schema: z.null() } },
      errors: { 404: NOT_FOUND, 410: INACTIVE },
      handler: async ({ ctx, params }) => {
        await sessions.deleteSession({ sessionId: params.session_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.status = 204;
        ctx.body = null;
      },
    }),
  ];
}
