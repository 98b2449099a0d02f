import { randomUUID } from 'node:crypto';
import { balanceTier } from '../../../common/balance-tiers.js';
import { toUsd } from '../../../common/pricing.js';
import { applyLedgerEntry } from '../../../control-plane/billing/ledger.js';
import { userAccountByEmail } from '../accounts-lookup.js';
import { CommandError, requiredString, usdAmount, UsageError, type AdminCommand } from '../command.js';

/** The largest deposit one command makes, US dollars: a typo guard, not a policy. */
export const MAX_OPERATOR_DEPOSIT_USD = 1_000_000;

/** Ledger references of operator deposits. */
const operatorReference = (reference: string) => `operator:${reference}`;

/** Credits a user's personal account through the ledger; with --reference, once. */
export const deposit: AdminCommand = {
  name: 'deposit',
  usage: '--email E --usd N [--reference R]',
  summary: 'deposit N US dollars to the personal account of E; with --reference R a repeat changes nothing',
  options: { email: { type: 'string' }, usd: { type: 'string' }, reference: { type: 'string' } },
  async run(ctx, values) {
    const email = requiredString(values, 'email');
    const amount = usdAmount(values, 'usd', MAX_OPERATOR_DEPOSIT_USD);
    const given = values['reference'];
    if (given !== undefined && (typeof given !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(given))) {
      throw new UsageError('--reference must be 1 to 200 printable characters without spaces');
    }
    const reference = operatorReference(typeof given === 'string' ? given : randomUUID());
    const { accountId } = await userAccountByEmail(ctx.pool, email);
    const entry = await applyLedgerEntry(ctx.pool, { accountId, kind: 'deposit', amountMicrocents: amount, reference });
    if (!entry.applied) {
      const earlier = (
        await ctx.pool.query<{ account_id: string; amount_microcents: string }>(
          `SELECT account_id, amount_microcents FROM ledger_entries WHERE reference = $1 AND kind = 'deposit'`,
          [reference],
        )
      ).rows[0];
      if (earlier && earlier.account_id !== accountId) throw new CommandError(`the reference ${given} was already used for another account`);
      ctx.print(`already applied: reference ${given} deposited $${toUsd(earlier?.amount_microcents ?? 0).toFixed(2)} before; nothing changed`);
      ctx.print(`balance:     $${toUsd(entry.balanceMicrocents).toFixed(2)}`);
      return;
    }
    const tier = (await ctx.pool.query<{ is_enterprise: boolean }>('SELECT is_enterprise FROM accounts WHERE id = $1', [accountId])).rows[0]!;
    ctx.print(`deposited:   $${toUsd(amount).toFixed(2)} to account ${accountId}`);
    ctx.print(`reference:   ${given ?? reference}`);
    ctx.print(`balance:     $${toUsd(entry.balanceMicrocents).toFixed(2)} (tier ${balanceTier(entry.balanceMicrocents, tier.is_enterprise).id})`);
  },
};
