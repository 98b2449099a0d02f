import type pg from 'pg';

export interface UsageTotals {
  totalRequests: number;
  successfulRequests: number;
  failedRequests: number;
  spendMicrocents: number;
  refundedMicrocents: number;
  depositsMicrocents: number;
}

export interface UsageReport extends UsageTotals {
  days: number;
  /** Every UTC day of the window, oldest first. */
  byDay: Array<UsageTotals & { date: string }>;
}

/*
 * Requests are the account's jobs (scrapes and extractions, refused ones
 * included) created in the window; spend is what finished jobs were charged,
 * refunds what failed ones gave back; deposits are the ledger's deposit
 * entries. Days are UTC calendar days, today included.
 */
const USAGE_SQL = `WITH days_in_window AS (
       SELECT d::date AS day
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d
     ), since AS (
       SELECT (min(day)::timestamp AT TIME ZONE 'UTC') AS at FROM days_in_window
     ), job_days AS (
       SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS total,
              count(*) FILTER (WHERE status = 'succeeded') AS succeeded, count(*) FILTER (WHERE status = 'failed') AS failed,
              sum(charged_microcents) AS spend, sum(refunded_microcents) AS refunded
       FROM jobs WHERE account_id = $1 AND created_at >= (SELECT at FROM since) GROUP BY 1
     ), deposit_days AS (
       SELECT (created_at AT TIME ZONE 'UTC')::date AS day, sum(amount_microcents) AS deposits
       FROM ledger_entries WHERE account_id = $1 AND kind = 'deposit' AND created_at >= (SELECT at FROM since) GROUP BY 1
     )
     SELECT to_char(w.day, 'YYYY-MM-DD') AS date, coalesce(j.total, 0) AS total, coalesce(j.succeeded, 0) AS succeeded,
            coalesce(j.failed, 0) AS failed, coalesce(j.spend, 0) AS spend, coalesce(j.refunded, 0) AS refunded,
            coalesce(d.deposits, 0) AS deposits
     FROM days_in_window w LEFT JOIN job_days j USING (day) LEFT JOIN deposit_days d USING (day)
     ORDER BY w.day`;

type UsageRow = Record<'date' | 'total' | 'succeeded' | 'failed' | 'spend' | 'refunded' | 'deposits', string>;

/** Requests and money of an account over the last `days` UTC days, in one query. */
export async function loadUsage(db: pg.Pool | pg.PoolClient, accountId: string, days: number): Promise<UsageReport> {
  const rows = (await db.query<UsageRow>(USAGE_SQL, [accountId, days])).rows;
  const byDay = rows.map((r) => ({
    date: r.date,
    totalRequests: Number(r.total),
    successfulRequests: Number(r.succeeded),
    failedRequests: Number(r.failed),
    spendMicrocents: Number(r.spend),
    refundedMicrocents: Number(r.refunded),
    depositsMicrocents: Number(r.deposits),
  }));
  const sum = (field: keyof UsageTotals) => byDay.reduce((total, day) => total + day[field], 0);
  return {
    days,
    totalRequests: sum('totalRequests'),
    successfulRequests: sum('successfulRequests'),
    failedRequests: sum('failedRequests'),
    spendMicrocents: sum('spendMicrocents'),
    refundedMicrocents: sum('refundedMicrocents'),
    depositsMicrocents: sum('depositsMicrocents'),
    byDay,
  };
}
