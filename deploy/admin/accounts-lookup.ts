import type pg from 'pg';
import { normalizeEmail } from '../../control-plane/accounts/users.js';
import { CommandError } from './command.js';

export interface UserAccount {
  userId: string;
  accountId: string;
  email: string;
}

/** The user with this e-mail (matched without regard to case) and their personal account. */
export async function userAccountByEmail(db: pg.Pool | pg.PoolClient, email: string): Promise<UserAccount> {
  const row = (
    await db.query<{ id: string; account_id: string; email: string }>('SELECT id, account_id, email FROM users WHERE lower(email) = $1', [normalizeEmail(email)])
  ).rows[0];
  if (!row) throw new CommandError(`no user with the e-mail address ${email}`);
  return { userId: row.id, accountId: row.account_id, email: row.email };
}
