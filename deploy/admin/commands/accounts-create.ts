import { randomUUID } from 'node:crypto';
import { balanceTier } from '../../../common/balance-tiers.js';
import { EMAIL_MAX_CHARS, PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS } from '../../../common/limits.js';
import { toUsd } from '../../../common/pricing.js';
import { createApiKey } from '../../../control-plane/accounts/api-keys.js';
import { hashPassword } from '../../../control-plane/accounts/passwords.js';
import { normalizeEmail } from '../../../control-plane/accounts/users.js';
import { applyLedgerEntry, withTransaction } from '../../../control-plane/billing/ledger.js';
import { CommandError, requiredString, usdAmount, UsageError, type AdminCommand } from '../command.js';
import { MAX_OPERATOR_DEPOSIT_USD } from './deposit.js';

const UNIQUE_VIOLATION = '23505';

/** A user with a personal account, an optional first deposit and a first API key, shown once. */
export const accountsCreate: AdminCommand = {
  name: 'accounts create',
  usage: '--email E --password P [--admin] [--usd N]',
  summary: 'create a user with a personal account (and a first deposit of N US dollars) and print its first API key, shown once',
  options: { email: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean' }, usd: { type: 'string' } },
  async run(ctx, values) {
    const email = normalizeEmail(requiredString(values, 'email'));
    if (email.length > EMAIL_MAX_CHARS || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError('--email must be an e-mail address');
    const password = typeof values['password'] === 'string' ? values['password'] : '';
    const length = [...password].length;
    if (length < PASSWORD_MIN_CHARS || length > PASSWORD_MAX_CHARS) throw new UsageError(`--password must be ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters`);
    const deposit = values['usd'] === undefined ? 0 : usdAmount(values, 'usd', MAX_OPERATOR_DEPOSIT_USD);
    const role = values['admin'] === true ? 'admin' : 'user';
    const masterKeyHex = await ctx.masterKey();
    const passwordHash = await hashPassword(password);

    const created = await withTransaction(ctx.pool, async (client) => {
      const account = await client.query<{ id: string }>('INSERT INTO accounts (name, email) VALUES ($1, $1) RETURNING id', [email]);
      const accountId = account.rows[0]!.id;
      let userId: string;
      try {
        userId = (
          await client.query<{ id: string }>('INSERT INTO users (email, password_hash, role, account_id) VALUES ($1, $2, $3, $4) RETURNING id', [
            email,
            passwordHash,
            role,
            accountId,
          ])
        ).rows[0]!.id;
      } catch (err) {
        if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw new CommandError(`the e-mail address ${email} is already registered`);
        throw err;
      }
      const balance = deposit > 0
        ? (await applyLedgerEntry(client, { accountId, kind: 'deposit', amountMicrocents: deposit, reference: `operator:${randomUUID()}` })).balanceMicrocents
        : 0;
      return { accountId, userId, balance };
    });
    const key = await createApiKey(ctx.pool, { accountId: created.accountId, name: 'First key', environment: 'live', masterKeyHex });
    await ctx.pool.query('UPDATE api_keys SET created_by_user_id = $2 WHERE id = $1', [key.id, created.userId]);

    ctx.print(`user id:     ${created.userId}`);
    ctx.print(`account id:  ${created.accountId}`);
    ctx.print(`email:       ${email}`);
    ctx.print(`role:        ${role}`);
    ctx.print(`balance:     $${toUsd(created.balance).toFixed(2)} (tier ${balanceTier(created.balance, false).id})`);
    ctx.print(`api key id:  ${key.id}`);
    ctx.print(`api key:     ${key.key}`);
    ctx.print('The API key is shown only this once; store it now.');
  },
};
