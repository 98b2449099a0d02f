import { balanceTier } from '../../../common/balance-tiers.js';
import { toUsd } from '../../../common/pricing.js';
import { UsageError, type AdminCommand } from '../command.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;

/** Accounts, newest first, with the e-mail of the user whose personal account it is ("-" for organizations' accounts). */
export const accountsList: AdminCommand = {
  name: 'accounts list',
  usage: `[--limit N]`,
  summary: `list accounts, newest first (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}): e-mail, account id, balance, tier, enterprise flag, creation time`,
  options: { limit: { type: 'string' } },
  async run(ctx, values) {
    const raw = values['limit'];
    const limit = raw === undefined ? DEFAULT_LIMIT : typeof raw === 'string' && /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
    const rows = (
      await ctx.pool.query<{ email: string | null; id: string; balance_microcents: string; is_enterprise: boolean; created_at: Date }>(
        `SELECT u.email, a.id, a.balance_microcents, a.is_enterprise, a.created_at
           FROM accounts a LEFT JOIN users u ON u.account_id = a.id
          ORDER BY a.created_at DESC, a.id LIMIT $1`,
        [limit],
      )
    ).rows;
    const table = [
      ['EMAIL', 'ACCOUNT ID', 'BALANCE USD', 'TIER', 'ENTERPRISE', 'CREATED'],
      ...rows.map((r) => {
        const balance = Number(r.balance_microcents);
        return [
          r.email ?? '-',
          r.id,
          toUsd(balance).toFixed(2),
          balanceTier(balance, r.is_enterprise).id,
          r.is_enterprise ? 'yes' : 'no',
          r.created_at.toISOString(),
        ];
      }),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    for (const row of table) ctx.print(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
  },
};
