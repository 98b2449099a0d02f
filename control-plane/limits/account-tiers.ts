import type pg from 'pg';
import { balanceTier, type BalanceTier } from '../../common/balance-tiers.js';

export interface AccountTiers {
  /** The account's tier by its balance and enterprise flag (and an enterprise account's custom limits) as Postgres has them now. */
  tierOf(accountId: string): Promise<BalanceTier>;
}

interface AccountRow {
  id: string;
  balance_microcents: string;
  is_enterprise: boolean;
  limit_requests_per_minute: number | null;
  limit_burst_per_second: number | null;
  limit_concurrent_requests: number | null;
  limit_dispatch_per_minute: number | null;
}

/** The balance tier; for an enterprise account, with the custom limits an operator set (migration 1732000000005). */
function tierOfRow(row: AccountRow): BalanceTier {
  const tier = balanceTier(Number(row.balance_microcents), row.is_enterprise);
  if (!row.is_enterprise) return tier;
  return {
    ...tier,
    requestsPerMinute: row.limit_requests_per_minute ?? tier.requestsPerMinute,
    burstPerSecond: row.limit_burst_per_second ?? tier.burstPerSecond,
    concurrentRequests: row.limit_concurrent_requests ?? tier.concurrentRequests,
    effectivePostPerMinute: row.limit_dispatch_per_minute ?? tier.effectivePostPerMinute,
  };
}

interface Waiting {
  resolve(tier: BalanceTier): void;
  reject(err: unknown): void;
}

/**
 * Reads the tier from Postgres for every call, so a deposit (or an operator
 * setting the enterprise flag) lifts it on the very next request, however the
 * balance changed. Calls arriving while a read is in flight share the next
 * read: one query answers every account asked for meanwhile. Each call's read
 * starts after the call arrived, so it never answers a balance older than the
 * call; under load the reads cost one query per round trip, not per call.
 */
export function createAccountTiers(pool: pg.Pool): AccountTiers {
  let next = new Map<string, Waiting[]>();
  let reading = false;

  const read = async () => {
    reading = true;
    while (next.size > 0) {
      const batch = next;
      next = new Map();
      try {
        const res = await pool.query<AccountRow>(
          `SELECT id, balance_microcents, is_enterprise, limit_requests_per_minute, limit_burst_per_second,
                  limit_concurrent_requests, limit_dispatch_per_minute
           FROM accounts WHERE id = ANY($1::uuid[])`,
          [[...batch.keys()]],
        );
        const found = new Map(res.rows.map((r) => [r.id, tierOfRow(r)]));
        for (const [id, waiting] of batch) {
          const tier = found.get(id) ?? balanceTier(0, false);
          for (const w of waiting) w.resolve(tier);
        }
      } catch (err) {
        for (const waiting of batch.values()) for (const w of waiting) w.reject(err);
      }
    }
    reading = false;
  };

  return {
    tierOf(accountId) {
      return new Promise<BalanceTier>((resolve, reject) => {
        const waiting = next.get(accountId);
        if (waiting) waiting.push({ resolve, reject });
        else next.set(accountId, [{ resolve, reject }]);
        if (!reading) void read();
      });
    },
  };
}
