import type { Redis } from 'ioredis';

/**
 * Every rate limit of the system in one Lua script, run atomically in Redis
 * on Redis's own clock (TIME), so any number of gateway and control-plane
 * processes share one count and no process's clock matters.
 *
 * KEYS: one key per GCRA limit, then the lease set (a sorted set of lease
 * ids scored by expiry, microseconds).
 * ARGV: n (number of GCRA limits), cost, then per limit: its count and its
 * period in milliseconds; then the lease ceiling (-1: no leases), the lease
 * time to live in milliseconds, the mode (`acquire` or `refresh`), the
 * number of leases to drop, the leases to drop (calls that ended, handed in
 * with the next call rather than in a command of their own), and the lease
 * ids to take (or renew).
 *
 * GCRA keeps one number per limit, the theoretical arrival time (TAT): each
 * request moves it on by cost × period / count; a request that would move it
 * more than one period past now is refused, and nothing is written. The
 * leases are taken only when every limit admits the request, and expired
 * leases (of a process that died) are dropped first.
 *
 * Answers {refused (0: admitted; i: limit i; n+1: the lease ceiling),
 * retry after (ms), remaining of limit 1, reset of limit 1 (Unix ms: when
 * its allowance is whole again), leases held}.
 */
const SCRIPT = `
local n = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local lk = KEYS[n + 1]
local base = 3 + 2 * n
local lease_limit = tonumber(ARGV[base])
local lease_ttl = tonumber(ARGV[base + 1]) * 1000
local mode = ARGV[base + 2]
local dropped = tonumber(ARGV[base + 3])
local first_id = base + 4 + dropped
-- The lease set lives at least as long as its longest lease.
local function keep_until(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
if mode == 'refresh' then
  for j = first_id, #ARGV do redis.call('ZADD', lk, 'XX', string.format('%.0f', now + lease_ttl), ARGV[j]) end
  keep_until(lk, math.ceil(lease_ttl / 1000) + 1000)
  return {0, 0, 0, 0, 0}
end
local refused, retry = 0, 0
local tats = {}
local first_old, first_new, first_period, first_interval = now, now, 1, 1
for i = 1, n do
  local count = tonumber(ARGV[1 + 2 * i])
  local period = tonumber(ARGV[2 + 2 * i]) * 1000
  local interval = period / count
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  if tat < now then tat = now end
  -- A request never costs more than the whole allowance (a write under a limit of one still passes when it is full).
  local new_tat = tat + math.min(cost, count) * interval
  local allow_at = new_tat - period
  if allow_at > now then
    if refused == 0 then refused = i end
    if allow_at - now > retry then retry = allow_at - now end
  end
  tats[i] = new_tat
  if i == 1 then first_old, first_new, first_period, first_interval = tat, new_tat, period, interval end
end
local held = 0
if lease_limit >= 0 then
  if dropped > 0 then redis.call('ZREM', lk, unpack(ARGV, base + 4, first_id - 1)) end
  redis.call('ZREMRANGEBYSCORE', lk, '-inf', now)
  held = redis.call('ZCARD', lk)
  local wanted = #ARGV - first_id + 1
  if refused == 0 and held + wanted > lease_limit then
    refused = n + 1
    retry = 1000000
  end
  if refused == 0 then
    local expiry = now + lease_ttl
    for j = first_id, #ARGV do redis.call('ZADD', lk, string.format('%.0f', expiry), ARGV[j]) end
    held = held + wanted
    keep_until(lk, math.ceil(lease_ttl / 1000) + 1000)
  end
end
local left = first_old
if refused == 0 then
  left = first_new
  for i = 1, n do
    redis.call('SET', KEYS[i], string.format('%.0f', tats[i]), 'PX', math.ceil((tats[i] - now) / 1000) + 1)
  end
end
local remaining = 0
if n > 0 then remaining = math.floor((first_period - (left - now)) / first_interval) end
return {refused, math.ceil(retry / 1000), remaining, math.floor(left / 1000), held}
`;

/** Whole seconds to wait, at least one: what Retry-After says for a refusal's wait. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export interface GcraLimit {
  key: string;
  count: number;
  periodMs: number;
}

export interface LeaseSet {
  key: string;
  /** Leases the set may hold at once. */
  ceiling: number;
  ttlMs: number;
  /** Lease ids to take: a call id, or the ids of the jobs dispatched. */
  ids: readonly string[];
  /** Leases to drop first, whatever the decision: those of calls that ended since the last call. */
  drop?: readonly string[];
}

export interface LimitDecision {
  /** 0 when admitted; i for the i-th limit (1-based); limits.length + 1 for the lease ceiling. */
  refused: number;
  retryAfterMs: number;
  /** Of the first limit: what is left after this request, and when it is whole again (Unix ms). */
  remaining: number;
  resetAtMs: number;
  /** Leases held, those just taken included. */
  leasesHeld: number;
}

export interface RateLimitScript {
  /** Spends `cost` on every limit and takes the leases, all or nothing. */
  take(limits: readonly GcraLimit[], cost: number, leases?: LeaseSet): Promise<LimitDecision>;
  /** Extends live leases (a process still running its calls) by the set's time to live. */
  refresh(leaseKey: string, ttlMs: number, ids: readonly string[]): Promise<void>;
}

type RunScript = (numberOfKeys: number, ...args: Array<string | number>) => Promise<number[]>;

/**
 * Loads the script once on the connection: ioredis sends EVALSHA, and EVAL
 * only when Redis does not know the script (after a restart or SCRIPT FLUSH).
 */
export function rateLimitScript(redis: Redis): RateLimitScript {
  if (!('trawlRateLimit' in redis)) redis.defineCommand('trawlRateLimit', { lua: SCRIPT });
  const run = (redis as unknown as { trawlRateLimit: RunScript }).trawlRateLimit.bind(redis);
  return {
    async take(limits, cost, leases) {
      const args: Array<string | number> = [...limits.map((l) => l.key), leases?.key ?? `${limits[0]?.key ?? 'none'}:no-leases`, limits.length, cost];
      for (const l of limits) args.push(l.count, l.periodMs);
      const drop = leases?.drop ?? [];
      args.push(leases ? leases.ceiling : -1, leases?.ttlMs ?? 0, 'acquire', drop.length, ...drop, ...(leases?.ids ?? []));
      const [refused, retryAfterMs, remaining, resetAtMs, leasesHeld] = await run(limits.length + 1, ...args);
      return { refused: refused!, retryAfterMs: retryAfterMs!, remaining: remaining!, resetAtMs: resetAtMs!, leasesHeld: leasesHeld! };
    },
    async refresh(leaseKey, ttlMs, ids) {
      if (ids.length === 0) return;
      await run(1, leaseKey, 0, 0, 0, ttlMs, 'refresh', 0, ...ids);
    },
  };
}
