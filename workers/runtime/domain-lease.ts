import type { Redis } from 'ioredis';
import { redisScript } from '../../common/redis-script.js';

/**
 * Per-domain concurrency slots shared by every worker, kept in Redis. Each
 * domain is a sorted set of holders scored by the moment their slot expires,
 * measured on the Redis server's clock so workers with skewed clocks agree.
 * Every acquire first drops expired holders, so the slot of a worker that died
 * without releasing comes back after ttlMs; a live holder keeps its slot by
 * refreshing well within ttlMs.
 *
 * Domains are keyed by lower-cased hostname with a leading `www.` folded in
 * (www.example.com and example.com share slots; blog.example.com has its own),
 * because that needs no public-suffix list and matches how sites usually
 * split their serving capacity.
 */
export interface DomainLeaseOptions {
  /** Holders allowed at once per domain. */
  limit: number;
  /** How long a slot lasts without a refresh. */
  ttlMs: number;
  /** Prepended to every key, e.g. `trawl:domain-lease:`. */
  keyPrefix: string;
  /**
   * How long a released slot stays with this process, for its next acquire of the same domain, before it is
   * given back to Redis (0, the default: at once). A crawl fetching page after page of one site then takes each
   * slot over from the page before without two round trips to Redis; other processes see it free up to this
   * much later. A slot taken over keeps the holder id it was first acquired with.
   */
  lingerMs?: number;
}

export interface Lease {
  readonly domain: string;
  readonly holderId: string;
  /** Extends the slot by ttlMs from now; false when the slot has already expired and was lost. */
  refresh(): Promise<boolean>;
  release(): Promise<void>;
}

export interface WaitOptions {
  /** How long to keep trying before giving up. */
  waitMs: number;
  signal?: AbortSignal;
}

export interface DomainLease {
  /** A slot for the domain now, or null when all are taken. The same holder acquiring again keeps one slot. */
  acquire(domain: string, holderId: string): Promise<Lease | null>;
  /** Retries with jittered backoff until a slot frees, the wait ends or the signal aborts (then null). */
  acquireWithWait(domain: string, holderId: string, opts: WaitOptions): Promise<Lease | null>;
}

// Milliseconds on the Redis server's clock.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] domain set; ARGV limit, ttlMs, holder. Returns 1 when the holder has a slot. */
const ACQUIRE = `${NOW}
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) == false and redis.call('ZCARD', KEYS[1]) >= limit then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1`;

/** KEYS[1] domain set; ARGV ttlMs, holder. Returns 0 when the slot had expired. */
const REFRESH = `${NOW}
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[2]) == false then
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1`;

/** The key part for a domain or hostname: lower-case, no trailing dot, `www.` folded. */
export function domainKey(domain: string): string {
  const host = domain.trim().toLowerCase().replace(/\.$/, '');
  return host.startsWith('www.') ? host.slice(4) : host;
}

const BACKOFF_START_MS = 25;
const BACKOFF_MAX_MS = 1_000;

/** Sleeps for ms, or until the signal aborts or `wake` (handed to onWake) is called. */
function sleep(ms: number, signal?: AbortSignal, onWake?: (wake: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      forget?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    const forget = onWake?.(done);
  });
}

/** A released slot this process still holds for its next acquire of the domain. */
interface ParkedSlot {
  holderId: string;
  /** When the slot ends unless refreshed, by this process's clock (acquired or refreshed + ttlMs). */
  heldUntil: number;
  timer: NodeJS.Timeout;
}

export function createDomainLease(redis: Redis, opts: DomainLeaseOptions): DomainLease {
  if (!(opts.limit >= 1) || !(opts.ttlMs >= 1)) throw new Error('A domain lease needs a limit and a ttl of at least 1');
  const ttl = String(Math.ceil(opts.ttlMs));
  const limit = String(opts.limit);
  const acquireScript = redisScript<[key: string, limit: string, ttl: string, holder: string], number>(redis, 'trawlLeaseAcquire', ACQUIRE, 1);
  const refreshScript = redisScript<[key: string, ttl: string, holder: string], number>(redis, 'trawlLeaseRefresh', REFRESH, 1);
  const lingerMs = Math.max(0, opts.lingerMs ?? 0);
  /** Released slots waiting for their next holder, by domain key. */
  const parked = new Map<string, ParkedSlot[]>();
  /** Waiters of acquireWithWait asleep, by domain key: a parked slot wakes one. */
  const sleepers = new Map<string, Set<() => void>>();
  // A slot is taken over only while at least half its time is left, so it cannot run out under its next page.
  const fresh = (heldUntil: number) => heldUntil - Date.now() > opts.ttlMs / 2;
  const giveBack = (key: string, holderId: string) => redis.zrem(key, holderId).then(() => undefined);
  const keyOf = (domain: string) => `${opts.keyPrefix}${domainKey(domain)}`;

  const park = (key: string, holderId: string, heldUntil: number): void => {
    const slots = parked.get(key) ?? [];
    const slot: ParkedSlot = {
      holderId,
      heldUntil,
      timer: setTimeout(() => {
        const left = parked.get(key)?.filter((s) => s !== slot) ?? [];
        if (left.length > 0) parked.set(key, left);
        else parked.delete(key);
        // A slot that cannot be given back (Redis away) ends with its ttl.
        void giveBack(key, holderId).catch(() => undefined);
      }, lingerMs),
    };
    slots.push(slot);
    parked.set(key, slots);
    const sleeper = sleepers.get(key)?.values().next().value;
    sleeper?.();
  };

  /** A parked slot of the domain still fresh enough to take over, or null; stale ones are given back. */
  const takeParked = (key: string): ParkedSlot | null => {
    const slots = parked.get(key);
    while (slots && slots.length > 0) {
      const slot = slots.pop()!;
      if (slots.length === 0) parked.delete(key);
      clearTimeout(slot.timer);
      if (fresh(slot.heldUntil)) return slot;
      void giveBack(key, slot.holderId).catch(() => undefined);
    }
    return null;
  };

  const makeLease = (domain: string, holderId: string, key: string, heldUntil: number): Lease => {
    let until = heldUntil;
    return {
      domain,
      holderId,
      async refresh() {
        const kept = (await refreshScript(key, ttl, holderId)) === 1;
        if (kept) until = Date.now() + opts.ttlMs;
        return kept;
      },
      async release() {
        if (lingerMs > 0 && fresh(until)) park(key, holderId, until);
        else await giveBack(key, holderId);
      },
    };
  };

  const acquire = async (domain: string, holderId: string): Promise<Lease | null> => {
    const key = keyOf(domain);
    const slot = takeParked(key);
    if (slot) return makeLease(domain, slot.holderId, key, slot.heldUntil);
    const granted = await acquireScript(key, limit, ttl, holderId);
    return granted === 1 ? makeLease(domain, holderId, key, Date.now() + opts.ttlMs) : null;
  };

  /** Registers a sleeping waiter of the domain's key, to be woken when a slot is parked. */
  const sleeperOf = (key: string) => (wake: () => void) => {
    const set = sleepers.get(key) ?? new Set<() => void>();
    set.add(wake);
    sleepers.set(key, set);
    return () => {
      set.delete(wake);
      if (set.size === 0) sleepers.delete(key);
    };
  };

  return {
    acquire,
    async acquireWithWait(domain, holderId, { waitMs, signal }) {
      const until = Date.now() + waitMs;
      const onWake = lingerMs > 0 ? sleeperOf(keyOf(domain)) : undefined;
      let ceiling = BACKOFF_START_MS;
      for (;;) {
        if (signal?.aborted) return null;
        const lease = await acquire(domain, holderId);
        if (lease && signal?.aborted) {
          await lease.release();
          return null;
        }
        if (lease) return lease;
        const left = until - Date.now();
        if (left <= 0) return null;
        // Full jitter keeps waiting workers from retrying in lockstep; a slot this process parks wakes a waiter at once.
        await sleep(Math.min(left, Math.max(1, Math.random() * ceiling)), signal, onWake);
        ceiling = Math.min(BACKOFF_MAX_MS, ceiling * 2);
      }
    },
  };
}
