import type { Redis } from 'ioredis';
import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { redisScript } from '../../common/redis-script.js';

export type ResetPeriod = 'daily' | 'weekly' | 'monthly';

export interface KeyLimitSettings {
  budgetLimitMicrocents: number | null;
  requestLimit: number | null;
  resetPeriod: ResetPeriod;
  enabled: boolean;
}

/** A key's limits with where its current period stands. */
export interface KeyLimitsState extends KeyLimitSettings {
  periodStart: Date;
  spentMicrocents: number;
  requestCount: number;
}

/** What admission needs about a key: its limits, and the bounds of its periods (from Postgres, the one definition). */
interface KeyPeriods {
  limits: KeyLimitSettings | null;
  periodStart: Date;
  periodEnd: Date;
  dayStart: Date;
  dayEnd: Date;
}

export interface KeyLimits {
  /**
   * Counts one request of an API key against its request limit and, for a
   * test key, against the test-key daily cap; throws RATE_LIMIT_EXCEEDED
   * when either is used up (the refused request is not counted).
   */
  admit(caller: { keyId: string; environment: 'live' | 'test' | null }): Promise<void>;
  /** The key's limits and its current period's spend and request count; null without limits. */
  read(keyId: string): Promise<KeyLimitsState | null>;
  write(keyId: string, settings: KeyLimitSettings): Promise<KeyLimitsState>;
  /** Answers false when the key had no limits. */
  remove(keyId: string): Promise<boolean>;
  /** Drops what is cached about a key (keys/key-changes.ts). */
  forget(keyId: string): void;
}

/** Counts a request unless the count has reached the limit; the counter lives until a day after its period ends. */
const COUNT_SCRIPT = `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return -1 end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return n`;

const COUNTER_GRACE_MS = 24 * 3600 * 1000;

const PERIODS_SQL = `SELECT l.budget_limit_microcents, l.request_limit, l.reset_period, l.enabled,
       api_key_period_start(coalesce(l.reset_period, 'daily'), now()) AS period_start,
       api_key_period_end(coalesce(l.reset_period, 'daily'), now()) AS period_end,
       api_key_period_start('daily', now()) AS day_start, api_key_period_end('daily', now()) AS day_end
  FROM (SELECT $1::uuid AS id) k LEFT JOIN api_key_limits l ON l.api_key_id = k.id`;

const STATE_SQL = `SELECT budget_limit_microcents, request_limit, reset_period, enabled, period_start,
       api_key_spend_since(api_key_id, period_start) AS spent
  FROM (SELECT *, api_key_period_start(reset_period, now()) AS period_start FROM api_key_limits WHERE api_key_id = $1) l`;

interface LimitsRow {
  budget_limit_microcents: string | null;
  request_limit: string | null;
  reset_period: ResetPeriod | null;
  enabled: boolean | null;
}

const settingsOf = (row: LimitsRow): KeyLimitSettings | null =>
  row.reset_period === null
    ? null
    : {
        budgetLimitMicrocents: row.budget_limit_microcents === null ? null : Number(row.budget_limit_microcents),
        requestLimit: row.request_limit === null ? null : Number(row.request_limit),
        resetPeriod: row.reset_period,
        enabled: row.enabled ?? true,
      };

const counterName = (kind: 'limit' | 'test-day', start: Date) => `${kind}:${start.toISOString()}`;

/**
 * Per-key limits. Request counts are atomic in Redis, one counter per key
 * and period; a key's limits and period bounds are cached for at most
 * cacheMs and never past the period's end, and dropped at once when the key
 * changes. The spend budget is held by Postgres at admission (the
 * jobs_api_key_budget trigger of migration 1732000000004).
 */
export function createKeyLimits(deps: {
  pool: pg.Pool;
  redis: Redis;
  keys: RedisKeys;
  testKeyDailyRequests: number;
  cacheMs: number;
  now?: () => number;
}): KeyLimits {
  const now = deps.now ?? Date.now;
  const countRequest = redisScript<[key: string, limit: number, expiresAt: number], number>(deps.redis, 'trawlCountRequest', COUNT_SCRIPT, 1);
  const cache = new Map<string, { value: KeyPeriods; expires: number }>();
  let epoch = 0;

  async function periodsOf(keyId: string): Promise<KeyPeriods> {
    const hit = cache.get(keyId);
    if (hit && hit.expires > now()) return hit.value;
    const started = epoch;
    const row = (
      await deps.pool.query<LimitsRow & { period_start: Date; period_end: Date; day_start: Date; day_end: Date }>(PERIODS_SQL, [keyId])
    ).rows[0]!;
    const value: KeyPeriods = {
      limits: settingsOf(row),
      periodStart: row.period_start,
      periodEnd: row.period_end,
      dayStart: row.day_start,
      dayEnd: row.day_end,
    };
    if (started === epoch) {
      if (cache.size > 10_000) cache.clear();
      cache.set(keyId, { value, expires: Math.min(now() + deps.cacheMs, value.periodEnd.getTime(), value.dayEnd.getTime()) });
    }
    return value;
  }

  async function count(keyId: string, counter: string, limit: number, resetAt: Date, name: string, what: string): Promise<void> {
    const n = Number(await countRequest(deps.keys.apiKeyRequests(keyId, counter), limit, resetAt.getTime() + COUNTER_GRACE_MS));
    if (n >= 0) return;
    const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now()) / 1000));
    throw new TrawlError('RATE_LIMIT_EXCEEDED', `${what} (${limit} requests) is used up until ${resetAt.toISOString()}`, {
      limit: name,
      request_limit: limit,
      reset_at: resetAt.toISOString(),
      retry_after_seconds: retryAfter,
    });
  }

  async function state(keyId: string): Promise<KeyLimitsState | null> {
    const row = (await deps.pool.query<LimitsRow & { period_start: Date; spent: string }>(STATE_SQL, [keyId])).rows[0];
    const settings = row ? settingsOf(row) : null;
    if (!row || !settings) return null;
    const counted = await deps.redis.get(deps.keys.apiKeyRequests(keyId, counterName('limit', row.period_start)));
    return { ...settings, periodStart: row.period_start, spentMicrocents: Number(row.spent), requestCount: Number(counted ?? 0) };
  }

  return {
    async admit({ keyId, environment }) {
      const periods = await periodsOf(keyId);
      if (environment === 'test') {
        await count(keyId, counterName('test-day', periods.dayStart), deps.testKeyDailyRequests, periods.dayEnd, 'test_key_daily', "The test key's daily allowance");
      }
      const limits = periods.limits;
      if (limits?.enabled && limits.requestLimit !== null) {
        await count(keyId, counterName('limit', periods.periodStart), limits.requestLimit, periods.periodEnd, 'api_key_request_limit', "This key's request limit");
      }
    },
    read: state,
    async write(keyId, settings) {
      await deps.pool.query(
        `INSERT INTO api_key_limits (api_key_id, budget_limit_microcents, request_limit, reset_period, enabled)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (api_key_id) DO UPDATE SET budget_limit_microcents = EXCLUDED.budget_limit_microcents,
           request_limit = EXCLUDED.request_limit, reset_period = EXCLUDED.reset_period, enabled = EXCLUDED.enabled, updated_at = now()`,
        [keyId, settings.budgetLimitMicrocents, settings.requestLimit, settings.resetPeriod, settings.enabled],
      );
      return (await state(keyId))!;
    },
    async remove(keyId) {
      return ((await deps.pool.query('DELETE FROM api_key_limits WHERE api_key_id = $1', [keyId])).rowCount ?? 0) > 0;
    },
    forget(keyId) {
      epoch++;
      cache.delete(keyId);
    },
  };
}

/** SQLSTATE the budget trigger raises when a job would take a key past its budget. */
const BUDGET_EXCEEDED_SQLSTATE = 'TRK01';

/** The budget trigger's refusal as the public KEY_BUDGET_EXCEEDED (402); undefined for any other error. */
export function keyBudgetExceeded(err: unknown): TrawlError | undefined {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== BUDGET_EXCEEDED_SQLSTATE) return undefined;
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(String((err as { detail?: unknown }).detail ?? '{}')) as Record<string, unknown>;
  } catch {
    // The message alone still says what happened.
  }
  return new TrawlError('KEY_BUDGET_EXCEEDED', "This request would take the API key past its spend budget for the period", details);
}
