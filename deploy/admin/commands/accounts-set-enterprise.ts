import { balanceTier } from '../../../common/balance-tiers.js';
import { userAccountByEmail } from '../accounts-lookup.js';
import { oneOf, requiredString, type AdminCommand } from '../command.js';

/** The enterprise flag (SPEC 8.1): the enterprise tier's limits whatever the balance. */
export const accountsSetEnterprise: AdminCommand = {
  name: 'accounts set-enterprise',
  usage: '--email E --on|--off',
  summary: "turn the enterprise flag of E's personal account on or off",
  options: { email: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' } },
  async run(ctx, values) {
    const email = requiredString(values, 'email');
    const on = oneOf(values, 'on', 'off') === 'on';
    const { accountId } = await userAccountByEmail(ctx.pool, email);
    const row = (
      await ctx.pool.query<{ balance_microcents: string }>('UPDATE accounts SET is_enterprise = $2 WHERE id = $1 RETURNING balance_microcents', [accountId, on])
    ).rows[0]!;
    ctx.print(`account ${accountId}: enterprise ${on ? 'on' : 'off'} (tier ${balanceTier(Number(row.balance_microcents), on).id})`);
  },
};
