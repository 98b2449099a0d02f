import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import type { Caller } from '../accounts/caller.js';

/** The caller's role in the organization its call acts on; null for a personal account or an API-key call. */
async function organizationRole(pool: pg.Pool, caller: Caller): Promise<string | null> {
  if (caller.credential !== 'session' || !caller.organizationId || !caller.userId) return null;
  const row = (
    await pool.query<{ role: string }>('SELECT role FROM organization_members WHERE organization_id = $1 AND user_id = $2', [
      caller.organizationId,
      caller.userId,
    ])
  ).rows[0];
  return row?.role ?? 'none';
}

const isOrganizationManager = (role: string | null) => role === null || role === 'owner' || role === 'admin';

/**
 * Creating, renaming, revoking and regenerating keys and changing their
 * limits: anyone acting on their own account (by session or with one of its
 * keys); on an organization's account by session, its owner and admins only.
 */
export async function requireKeyManager(pool: pg.Pool, caller: Caller): Promise<void> {
  if (!isOrganizationManager(await organizationRole(pool, caller))) {
    throw new TrawlError('FORBIDDEN', "Only the organization's owner and admins manage its API keys");
  }
}

/**
 * Revealing a stored key: the account's owner by session (the user whose
 * personal account it is, or the organization's owner or admin). An API-key
 * call may reveal only the key it was made with, which it already holds, so
 * a leaked key never uncovers the others.
 */
export async function requireKeyRevealer(pool: pg.Pool, caller: Caller, keyId: string): Promise<void> {
  if (caller.credential === 'api_key') {
    if (caller.keyId !== keyId) throw new TrawlError('FORBIDDEN', 'An API key may reveal only itself; sign in to reveal other keys');
    return;
  }
  await requireKeyManager(pool, caller);
}
