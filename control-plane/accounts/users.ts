import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS } from '../../common/limits.js';
import { withTransaction } from '../billing/ledger.js';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import type { SessionTokens } from './session-tokens.js';
import { grantWelcomeBonus, signupAddress, siblingEmailDomain, type WelcomeBonusAmounts } from './welcome-bonus.js';

export interface UserRecord {
  id: string;
  email: string;
  role: 'user' | 'admin';
  accountId: string;
  createdAt: Date;
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

export interface Registration {
  user: UserRecord;
  session: IssuedSession;
  welcomeBonusMicrocents: number;
  reducedBonus: boolean;
}

export interface UsersDeps {
  pool: pg.Pool;
  sessionTokens: SessionTokens;
  welcomeBonus: WelcomeBonusAmounts;
}

/** E-mail addresses are stored trimmed and in lower case; uniqueness is on lower(email). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const UNIQUE_VIOLATION = '23505';

function emailTaken(): TrawlError {
  return new TrawlError('CONFLICT', 'This e-mail address cannot be registered; log in instead');
}

/** One answer for an unknown e-mail, a user without a password and a wrong password. */
function invalidCredentials(): TrawlError {
  return new TrawlError('INVALID_CREDENTIALS', 'The e-mail address or password is incorrect');
}

type UserRow = { id: string; email: string; role: 'user' | 'admin'; account_id: string; created_at: Date };

function userOf(row: UserRow): UserRecord {
  return { id: row.id, email: row.email, role: row.role, accountId: row.account_id, createdAt: row.created_at };
}

/** Registration, login and the e-mail check. Passwords only ever reach the database as scrypt hashes. */
export function createUsers(deps: UsersDeps) {
  const decoy = decoyHash();
  return {
    /**
     * A user with a personal account (credited with the welcome bonus through
     * the ledger) and a session. `clientIp` is the address the gateway saw.
     */
    async register(input: { email: string; password: string; clientIp: string | null }): Promise<Registration> {
      const email = normalizeEmail(input.email);
      const length = [...input.password].length;
      if (length < PASSWORD_MIN_CHARS || length > PASSWORD_MAX_CHARS) {
        throw new TrawlError('VALIDATION_ERROR', `password: must be ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters`);
      }
      // Hashed before anything is looked up, so a taken address answers no faster than a new one.
      const passwordHash = await hashPassword(input.password);
      const ip = signupAddress(input.clientIp);
      const emailDomain = siblingEmailDomain(email);
      const created = await withTransaction(deps.pool, async (client) => {
        const account = await client.query<{ id: string }>('INSERT INTO accounts (name, email) VALUES ($1, $1) RETURNING id', [email]);
        const accountId = account.rows[0]!.id;
        let row: UserRow;
        try {
          row = (
            await client.query<UserRow>(
              `INSERT INTO users (email, password_hash, account_id, signup_ip, signup_email_domain) VALUES ($1, $2, $3, $4, $5)
               RETURNING id, email, role, account_id, created_at`,
              [email, passwordHash, accountId, ip, emailDomain],
            )
          ).rows[0]!;
        } catch (err) {
          if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw emailTaken();
          throw err;
        }
        const bonus = await grantWelcomeBonus(client, { accountId, userId: row.id, ip, emailDomain }, deps.welcomeBonus);
        return { user: userOf(row), bonus };
      });
      const session = await deps.sessionTokens.issue(created.user.id);
      return { user: created.user, session, welcomeBonusMicrocents: created.bonus.grantedMicrocents, reducedBonus: created.bonus.reduced };
    },

    /** A session for the right e-mail and password; INVALID_CREDENTIALS, after the same work, for anything else. */
    async login(input: { email: string; password: string }): Promise<IssuedSession> {
      // Longer passwords are never stored, and hashing one would only cost time.
      if ([...input.password].length > PASSWORD_MAX_CHARS) throw invalidCredentials();
      const row = (
        await deps.pool.query<{ id: string; password_hash: string | null }>('SELECT id, password_hash FROM users WHERE lower(email) = $1', [
          normalizeEmail(input.email),
        ])
      ).rows[0];
      const stored = row?.password_hash ?? (await decoy());
      const matches = await verifyPassword(input.password, stored);
      if (!row?.password_hash || !matches) throw invalidCredentials();
      if (needsRehash(row.password_hash)) {
        await deps.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [row.id, await hashPassword(input.password)]);
      }
      return deps.sessionTokens.issue(row.id);
    },

    async checkEmail(email: string): Promise<{ exists: boolean; hasPassword: boolean }> {
      const row = (
        await deps.pool.query<{ has_password: boolean }>('SELECT password_hash IS NOT NULL AS has_password FROM users WHERE lower(email) = $1', [
          normalizeEmail(email),
        ])
      ).rows[0];
      return { exists: row !== undefined, hasPassword: row?.has_password ?? false };
    },

    async byId(userId: string): Promise<UserRecord | null> {
      const row = (await deps.pool.query<UserRow>('SELECT id, email, role, account_id, created_at FROM users WHERE id = $1', [userId])).rows[0];
      return row ? userOf(row) : null;
    },

    /** The user whose personal account this is; null for organizations' accounts and the operator's. */
    async byAccount(accountId: string): Promise<UserRecord | null> {
      const row = (
        await deps.pool.query<UserRow>('SELECT id, email, role, account_id, created_at FROM users WHERE account_id = $1', [accountId])
      ).rows[0];
      return row ? userOf(row) : null;
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
