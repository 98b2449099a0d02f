import type { Redis } from 'ioredis';
import { redisScript } from './redis-script.js';

/**
 * Every rate limit of the system in one Lua script, run atomically in Redis
 * on Redis's own clock (TIME), so any number of gateway and control-plane
 * processes share one count and no process's clock matters.
 *
 * One run decides a batch of requests against the same limits, in order, as
 * if each had run alone at the same instant: a process hands in every call
 * of a key that arrived while the key's previous run was in flight, so the
 * fixed work of a run (the clock, reading each limit, dropping expired
 * leases) is done once for them all.
 *
 * KEYS: one key per GCRA limit, then the lease set (a sorted set of lease
 * ids scored by expiry, microseconds).
 * ARGV: n (number of GCRA limits), then per limit its count and its period
 * in milliseconds; then the lease ceiling (-1: no leases), the lease time to
 * live in milliseconds, the mode (`acquire` or `refresh`), the number of
 * leases to drop and the leases to drop (calls that ended, handed in with
 * the next run rather than in a command of their own). In `acquire` mode
 * the number of requests follows, then per request its cost, its number of
 * lease ids and the ids; in `refresh` mode, the lease ids to renew.
 *
 * GCRA keeps one number per limit, the theoretical arrival time (TAT): each
 * request moves it on by cost × period / count; a request that would move it
 * more than one period past now is refused, and moves nothing. A request's
 * leases are taken only when every limit admits it, and expired leases (of a
 * process that died) are dropped first.
 *
 * Answers, per request, {refused (0: admitted; i: limit i; n+1: the lease
 * ceiling), retry after (ms), remaining of limit 1, reset of limit 1 (Unix
 * ms: when its allowance is whole again), leases held}.
 */
const SCRIPT = `
local n = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local lk = KEYS[n + 1]
local p = 2 + 2 * n
local lease_limit = tonumber(ARGV[p])
local lease_ttl = tonumber(ARGV[p + 1]) * 1000
local mode = ARGV[p + 2]
local dropped = tonumber(ARGV[p + 3])
local drop_from = p + 4
p = drop_from + dropped
-- The lease set lives at least as long as its longest lease.
local function keep_until(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
local keep_ms = math.ceil(lease_ttl / 1000) + 1000
local expiry = string.format('%.0f', now + lease_ttl)
if mode == 'refresh' then
  for j = p, #ARGV do redis.call('ZADD', lk, 'XX', expiry, ARGV[j]) end
  keep_until(lk, keep_ms)
  return {}
end
local counts, periods, intervals, tats = {}, {}, {}, {}
for i = 1, n do
  counts[i] = tonumber(ARGV[2 * i])
  periods[i] = tonumber(ARGV[1 + 2 * i]) * 1000
  intervals[i] = periods[i] / counts[i]
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  if tat < now then tat = now end
  tats[i] = tat
end
local held = 0
if lease_limit >= 0 then
  if dropped > 0 then redis.call('ZREM', lk, unpack(ARGV, drop_from, p - 1)) end
  redis.call('ZREMRANGEBYSCORE', lk, '-inf', now)
  held = redis.call('ZCARD', lk)
end
local m = tonumber(ARGV[p])
p = p + 1
local out = {}
local taken = {}
local moved = false
local new_tats = {}
for r = 1, m do
  local cost = tonumber(ARGV[p])
  local k = tonumber(ARGV[p + 1])
  local ids_from = p + 2
  p = ids_from + k
  local refused, retry = 0, 0
  for i = 1, n do
    -- A request never costs more than the whole allowance (a write under a limit of one still passes when it is full).
    local new_tat = tats[i] + math.min(cost, counts[i]) * intervals[i]
    local allow_at = new_tat - periods[i]
    if allow_at > now then
      if refused == 0 then refused = i end
      if allow_at - now > retry then retry = allow_at - now end
    end
    new_tats[i] = new_tat
  end
  if lease_limit >= 0 and refused == 0 and held + k > lease_limit then
    refused = n + 1
    retry = 1000000
  end
  if refused == 0 then
    moved = true
    for i = 1, n do tats[i] = new_tats[i] end
    if lease_limit >= 0 then
      for j = ids_from, p - 1 do
        taken[#taken + 1] = expiry
        taken[#taken + 1] = ARGV[j]
      end
      held = held + k
    end
  end
  local remaining, reset = 0, 0
  if n > 0 then
    remaining = math.floor((periods[1] - (tats[1] - now)) / intervals[1])
    reset = math.floor(tats[1] / 1000)
  end
  out[#out + 1] = refused
  out[#out + 1] = math.ceil(retry / 1000)
  out[#out + 1] = remaining
  out[#out + 1] = reset
  out[#out + 1] = held
end
if #taken > 0 then
  redis.call('ZADD', lk, unpack(taken))
  keep_until(lk, keep_ms)
end
if moved then
  for i = 1, n do
    redis.call('SET', KEYS[i], string.format('%.0f', tats[i]), 'PX', math.ceil((tats[i] - now) / 1000) + 1)
  end
end
return out
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

/** One request of a batch: its cost and the lease ids it takes. */
export interface BatchedRequest {
  cost: number;
  ids: readonly string[];
}

export interface RateLimitScript {
  /** Spends `cost` on every limit and takes the leases, all or nothing. */
  take(limits: readonly GcraLimit[], cost: number, leases?: LeaseSet): Promise<LimitDecision>;
  /**
   * Decides several requests in one run, in order, each as `take` would
   * (the leases' own ids are ignored: each request brings its own).
   */
  takeMany(limits: readonly GcraLimit[], requests: readonly BatchedRequest[], leases?: Omit<LeaseSet, 'ids'>): Promise<LimitDecision[]>;
  /** Extends live leases (a process still running its calls) by the set's time to live. */
  refresh(leaseKey: string, ttlMs: number, ids: readonly string[]): Promise<void>;
}

/** The script on the connection, sent by hash (redisScript); each call passes its number of keys first. */
export function rateLimitScript(redis: Redis): RateLimitScript {
  const run = redisScript<[numberOfKeys: number, ...args: Array<string | number>], number[]>(redis, 'trawlRateLimit', SCRIPT);
  const takeMany: RateLimitScript['takeMany'] = async (limits, requests, leases) => {
    const args: Array<string | number> = [...limits.map((l) => l.key), leases?.key ?? `${limits[0]?.key ?? 'none'}:no-leases`, limits.length];
    for (const l of limits) args.push(l.count, l.periodMs);
    const drop = leases?.drop ?? [];
    args.push(leases ? leases.ceiling : -1, leases?.ttlMs ?? 0, 'acquire', drop.length, ...drop, requests.length);
    for (const r of requests) args.push(r.cost, r.ids.length, ...r.ids);
    const answer = await run(limits.length + 1, ...args);
    const decisions: LimitDecision[] = [];
    for (let i = 0; i < requests.length; i++) {
      const at = i * 5;
      decisions.push({ refused: answer[at]!, retryAfterMs: answer[at + 1]!, remaining: answer[at + 2]!, resetAtMs: answer[at + 3]!, leasesHeld: answer[at + 4]! });
    }
    return decisions;
  };
  return {
    takeMany,
    async take(limits, cost, leases) {
      const [decision] = await takeMany(limits, [{ cost, ids: leases?.ids ?? [] }], leases);
      return decision!;
    },
    async refresh(leaseKey, ttlMs, ids) {
      if (ids.length === 0) return;
      await run(1, leaseKey, 0, 0, ttlMs, 'refresh', 0, ...ids);
    },
  };
}
