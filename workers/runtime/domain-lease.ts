import type { Redis } from 'ioredis';

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

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The scripts as Redis commands: sent by hash (EVALSHA), the script text only when the server lacks it. */
interface LeaseCommands {
  trawlLeaseAcquire(key: string, limit: string, ttl: string, holder: string): Promise<number>;
  trawlLeaseRefresh(key: string, ttl: string, holder: string): Promise<number>;
}

function leaseCommands(redis: Redis): LeaseCommands {
  const commands = redis as unknown as Partial<LeaseCommands>;
  if (!commands.trawlLeaseAcquire) redis.defineCommand('trawlLeaseAcquire', { numberOfKeys: 1, lua: ACQUIRE });
  if (!commands.trawlLeaseRefresh) redis.defineCommand('trawlLeaseRefresh', { numberOfKeys: 1, lua: REFRESH });
  return redis as unknown as LeaseCommands;
}

export function createDomainLease(redis: Redis, opts: DomainLeaseOptions): DomainLease {
  if (!(opts.limit >= 1) || !(opts.ttlMs >= 1)) throw new Error('A domain lease needs a limit and a ttl of at least 1');
  const ttl = String(Math.ceil(opts.ttlMs));
  const limit = String(opts.limit);
  const scripts = leaseCommands(redis);

  const makeLease = (domain: string, holderId: string, key: string): Lease => ({
    domain,
    holderId,
    async refresh() {
      return (await scripts.trawlLeaseRefresh(key, ttl, holderId)) === 1;
    },
    async release() {
      await redis.zrem(key, holderId);
    },
  });

  const acquire = async (domain: string, holderId: string): Promise<Lease | null> => {
    const key = `${opts.keyPrefix}${domainKey(domain)}`;
    const granted = await scripts.trawlLeaseAcquire(key, limit, ttl, holderId);
    return granted === 1 ? makeLease(domain, holderId, key) : null;
  };

  return {
    acquire,
    async acquireWithWait(domain, holderId, { waitMs, signal }) {
      const until = Date.now() + waitMs;
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
        // Full jitter keeps waiting workers from retrying in lockstep.
        await sleep(Math.min(left, Math.max(1, Math.random() * ceiling)), signal);
        ceiling = Math.min(BACKOFF_MAX_MS, ceiling * 2);
      }
    },
  };
}
