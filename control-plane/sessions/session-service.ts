import { create } from '@bufbuild/protobuf';
import type { DescMethod } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { DeleteSessionResponseSchema, ListSessionsResponseSchema, SessionService, StoredSessionSchema } from '../../proto/gen/trawl/v1/sessions_pb.js';
import { callerOf, type CallAuth } from '../accounts/caller.js';
import { createSession, deleteSession, getSession, listSessions, refreshSession, type SessionRow, type SessionStatus } from './session-store.js';

/** Stored sessions are managed with an API key or from the dashboard with a session token. */
export const SESSION_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = Object.values(SessionService.method).map((m) => [m, 'either']);

const STATUSES: readonly string[] = ['', 'active', 'expired', 'inactive'];

function present(row: SessionRow) {
  return create(StoredSessionSchema, {
    sessionId: row.id,
    name: row.name,
    domain: row.domain,
    status: row.status,
    cookieNames: row.cookie_names,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(row.expires_at ? { expiresAt: row.expires_at.toISOString() } : {}),
    ...(row.last_used_at ? { lastUsedAt: row.last_used_at.toISOString() } : {}),
  });
}

/** An expiry as sent (RFC 3339, already checked by the gateway), or null for none. */
function expiryOf(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new TrawlError('VALIDATION_ERROR', 'expires_at must be an RFC 3339 date-time', { fields: [{ field: 'expires_at', message: 'not a date-time' }] });
  return at;
}

export function createSessionService(deps: { pool: pg.Pool; masterKeyHex: string }): ServiceImpl<typeof SessionService> {
  return {
    async createSession(req, ctx) {
      const { accountId } = callerOf(ctx);
      const row = await createSession(deps.pool, deps.masterKeyHex, accountId, {
        name: req.name,
        domain: req.domain,
        cookies: req.cookies,
        expiresAt: expiryOf(req.expiresAt),
      });
      return present(row);
    },
    async listSessions(req, ctx) {
      if (!STATUSES.includes(req.status)) throw new TrawlError('VALIDATION_ERROR', 'status must be active, expired or inactive');
      const rows = await listSessions(deps.pool, callerOf(ctx).accountId, req.status as SessionStatus | '');
      return create(ListSessionsResponseSchema, { sessions: rows.map(present), total: rows.length });
    },
    async getSession(req, ctx) {
      return present(await getSession(deps.pool, callerOf(ctx).accountId, req.sessionId));
    },
    async refreshSession(req, ctx) {
      const cookies = Object.keys(req.cookies).length > 0 ? req.cookies : null;
      // Absent: the expiry stays; empty: the session no longer expires.
      const expiresAt = req.expiresAt === undefined ? undefined : req.expiresAt === '' ? null : expiryOf(req.expiresAt);
      return present(await refreshSession(deps.pool, deps.masterKeyHex, callerOf(ctx).accountId, req.sessionId, { cookies, expiresAt }));
    },
    async deleteSession(req, ctx) {
      await deleteSession(deps.pool, callerOf(ctx).accountId, req.sessionId);
      return create(DeleteSessionResponseSchema, {});
    },
  };
}
