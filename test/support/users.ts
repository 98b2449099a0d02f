import { randomUUID } from 'node:crypto';
import { createAccount, createApiKey } from '../../control-plane/accounts/api-keys.js';
import { createSessionTokens } from '../../control-plane/accounts/session-tokens.js';
import { grantEnterprise } from '../../deploy/local/dev-account.js';
import type { IsolatedStack } from '../../deploy/local/isolated-stack.js';

export interface TestUser {
  userId: string;
  accountId: string;
  email: string;
  /** A session token for Authorization: Bearer. */
  token: string;
  /** A live API key of the user's account. */
  key: string;
}

/**
 * A user with a personal account holding `microcents`, a session token
 * signed with the stack's own secret, and a live key: written straight to
 * the database, so suites that need a logged-in user do not depend on the
 * register and login routes. `enterprise` lifts the account's rate limits (SPEC 8.1) for suites that send many requests.
 */
export async function createTestUser(
  stack: IsolatedStack,
  opts: { microcents?: number; role?: 'user' | 'admin'; email?: string; enterprise?: boolean } = {},
): Promise<TestUser> {
  const email = opts.email ?? `user-${randomUUID()}@example.test`;
  const { accountId } = await createAccount(stack.pool, { name: email, email, initialMicrocents: opts.microcents ?? 0 });
  if (opts.enterprise) await grantEnterprise(stack.pool, accountId);
  const user = await stack.pool.query<{ id: string }>('INSERT INTO users (email, role, account_id) VALUES ($1, $2, $3) RETURNING id', [
    email,
    opts.role ?? 'user',
    accountId,
  ]);
  const userId = user.rows[0]!.id;
  const { token } = await createSessionTokens(stack.config.session).issue(userId);
  const { key } = await createApiKey(stack.pool, { accountId, name: 'key', environment: 'live', masterKeyHex: stack.config.masterKeyHex });
  return { userId, accountId, email, token, key };
}
