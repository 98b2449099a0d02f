import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import type { Caller } from './caller.js';
import type { SessionTokens } from './session-tokens.js';
import { isUuid } from '../../common/ids.js';

export interface SessionAuthenticator {
  /** The user behind a session token, acting on their own account or on the organization named. */
  authenticate(token: string, organizationId: string | null): Promise<Caller>;
  /** An API-key caller that names an organization: allowed only when the key belongs to that organization's account. */
  scopeKeyToOrganization(caller: Caller, organizationId: string): Promise<Caller>;
}

function organizationNotFound(): TrawlError {
  return new TrawlError('NOT_FOUND', 'Organization not found');
}

/**
 * Session tokens name a user; the user is read on every call (dashboard
 * traffic is light), so a deleted user or a lost membership takes effect at once.
 */
export function createSessionAuthenticator(pool: pg.Pool, tokens: SessionTokens): SessionAuthenticator {
  return {
    async authenticate(token, organizationId) {
      const { userId } = await tokens.verify(token);
      const user = (
        await pool.query<{ account_id: string; role: 'user' | 'admin' }>('SELECT account_id, role FROM users WHERE id = $1', [userId])
      ).rows[0];
      if (!user) throw new TrawlError('INVALID_SESSION_TOKEN', 'The session token is invalid');
      const caller: Caller = {
        accountId: user.account_id,
        credential: 'session',
        keyId: null,
        userId,
        environment: null,
        role: user.role,
        organizationId: null,
        scopes: ['scrape'],
      };
      if (!organizationId) return caller;
      if (!isUuid(organizationId)) throw organizationNotFound();
      const org = (
        await pool.query<{ account_id: string }>(
          `SELECT o.account_id FROM organizations o JOIN organization_members m ON m.organization_id = o.id
            WHERE o.id = $1 AND m.user_id = $2`,
          [organizationId, userId],
        )
      ).rows[0];
      if (!org) throw organizationNotFound();
      return { ...caller, accountId: org.account_id, organizationId };
    },
    async scopeKeyToOrganization(caller, organizationId) {
      if (!isUuid(organizationId)) throw organizationNotFound();
      const org = (
        await pool.query<{ account_id: string }>('SELECT account_id FROM organizations WHERE id = $1', [organizationId])
      ).rows[0];
      if (!org || org.account_id !== caller.accountId) throw organizationNotFound();
      return { ...caller, organizationId };
    },
  };
}
