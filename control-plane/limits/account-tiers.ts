import type pg from 'pg';
import { balanceTier, type BalanceTier } from '../../common/balance-tiers.js';
import type { Logger } from '../../common/logger.js';

export interface AccountTiers {
  /** The account's tier by its balance and enterprise flag (and an enterprise account's custom limits) as Postgres has them now. */
  tierOf(accountId: string): Promise<BalanceTier>;
  /** Settles once this process first listens for the announcements (from then on a tier read once is cached). */
  readonly listening: Promise<void>;
  /**
   * Settles once every announcement of a transaction that committed before
   * the call has reached the cache: a writer in this process (a payment
   * deposited) awaits it before answering, so the next call sees the new tier.
   */
  caughtUp(): Promise<void>;
  /** Ends the announcements' connection. */
  stop(): Promise<void>;
}

/** Who a tier is asked for: the account, and the environment of the key calling (null for a session). */
export interface TierCaller {
  accountId: string;
  environment: 'live' | 'test' | null;
}

/** The tier a call runs at: a test key's is the Free tier whatever the balance (they run free of charge), anyone else's the account's. */
export function tierOfCaller(tiers: AccountTiers, caller: TierCaller): Promise<BalanceTier> {
  return caller.environment === 'test' ? Promise.resolve(balanceTier(0, false)) : tiers.tierOf(caller.accountId);
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

/** The longest caughtUp waits for its round trip on the listening connection. */
const CAUGHT_UP_WAIT_MS = 2_000;

/** The channel migration 1732000000008 announces every change of an account's tier inputs on, with the new values. */
const CHANNEL = 'account_limits';

/** Past this many accounts the cache starts over; any account is read again on its next call. */
const MAX_CACHED = 100_000;

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
 * The tiers of the accounts calling this process, kept current by Postgres:
 * the accounts row announces every change of a tier input at commit
 * (migration 1732000000008), and this process listens on one connection of
 * the pool. An account is read once, on its first call; after that a deposit,
 * a charge or an operator's change reaches the cache as its transaction
 * commits, so the tier follows the balance without a query per call.
 *
 * While the listening connection is down (at start, after Postgres dropped
 * it) nothing is cached and every call reads the row, as it would with no
 * cache; calls arriving while a read is in flight share the next read, one
 * query for every account asked for meanwhile. A read's answer never
 * replaces an announcement that arrived while it was in flight.
 */
export function createAccountTiers(deps: { pool: pg.Pool; log: Logger; reconnectMs?: number }): AccountTiers {
  const reconnectMs = deps.reconnectMs ?? 1_000;
  const cache = new Map<string, BalanceTier>();
  /** Accounts being read now: an announcement about one of them is newer than what the read will answer. */
  const reading = new Set<string>();
  let next = new Map<string, Waiting[]>();
  let readLoop = false;
  let listener: pg.PoolClient | undefined;
  let following = false;
  /** Counts the times the cache was dropped: a read that started before a drop may not fill it. */
  let generation = 0;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let nowListening!: () => void;
  const listening = new Promise<void>((resolve) => (nowListening = resolve));

  const read = async () => {
    while (next.size > 0) {
      const batch = next;
      next = new Map();
      const ids = [...batch.keys()];
      for (const id of ids) reading.add(id);
      const startedIn = generation;
      try {
        const res = await deps.pool.query<AccountRow>(
          `SELECT id, balance_microcents, is_enterprise, limit_requests_per_minute, limit_burst_per_second,
                  limit_concurrent_requests, limit_dispatch_per_minute
           FROM accounts WHERE id = ANY($1::uuid[])`,
          [ids],
        );
        const found = new Map(res.rows.map((r) => [r.id, tierOfRow(r)]));
        for (const [id, waiting] of batch) {
          const tier = found.get(id) ?? balanceTier(0, false);
          if (following && startedIn === generation && found.has(id) && !cache.has(id)) {
            if (cache.size >= MAX_CACHED) cache.clear();
            cache.set(id, tier);
          }
          for (const w of waiting) w.resolve(tier);
        }
      } catch (err) {
        for (const waiting of batch.values()) for (const w of waiting) w.reject(err);
      } finally {
        for (const id of ids) reading.delete(id);
      }
    }
    readLoop = false;
  };

  const announced = (msg: pg.Notification) => {
    if (msg.channel !== CHANNEL || !msg.payload) return;
    let row: AccountRow;
    try {
      row = JSON.parse(msg.payload) as AccountRow;
    } catch (err) {
      deps.log.warn({ err, payload: msg.payload }, 'an account limits announcement is not JSON; dropping what is cached');
      cache.clear();
      generation++;
      return;
    }
    if (cache.has(row.id) || reading.has(row.id)) cache.set(row.id, tierOfRow(row));
  };

  /** The listening connection ended or failed: until another listens, the cache is off. */
  const lost = (client: pg.PoolClient, err?: unknown) => {
    if (listener !== client) return;
    listener = undefined;
    following = false;
    cache.clear();
    generation++;
    client.removeListener('notification', announced);
    client.release(err instanceof Error ? err : true);
    if (stopped) return;
    deps.log.warn({ err }, `the connection for account limit announcements was lost; reading every tier until it is back, retrying in ${reconnectMs} ms`);
    retry = setTimeout(() => void follow(), reconnectMs);
    retry.unref();
  };

  const follow = async () => {
    retry = undefined;
    let client: pg.PoolClient;
    try {
      client = await deps.pool.connect();
    } catch (err) {
      if (stopped) return;
      deps.log.warn({ err }, `connecting for account limit announcements failed; retrying in ${reconnectMs} ms`);
      retry = setTimeout(() => void follow(), reconnectMs);
      retry.unref();
      return;
    }
    if (stopped) return client.release();
    listener = client;
    client.on('notification', announced);
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    try {
      await client.query(`LISTEN ${CHANNEL}`);
      if (listener === client) {
        following = true;
        nowListening();
      }
    } catch (err) {
      lost(client, err);
    }
  };
  void follow();

  return {
    listening,
    tierOf(accountId) {
      if (following) {
        const cached = cache.get(accountId);
        if (cached) return Promise.resolve(cached);
      }
      return new Promise<BalanceTier>((resolve, reject) => {
        const waiting = next.get(accountId);
        if (waiting) waiting.push({ resolve, reject });
        else next.set(accountId, [{ resolve, reject }]);
        if (!readLoop) {
          // Started after this turn's other calls have joined the batch.
          readLoop = true;
          queueMicrotask(() => void read());
        }
      });
    },
    async caughtUp() {
      // A committing transaction signals the listening backend before its
      // commit returns, and Postgres sends a listener what it was signalled
      // about before the ReadyForQuery that ends any later query on that
      // connection: after one round trip there, every announcement committed
      // before it has been handled. Not listening, nothing is cached.
      // Bounded: a connection that hangs delays no payment answer beyond it (the announcement still comes).
      const client = following ? listener : undefined;
      if (!client) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.query('SELECT 1').catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, CAUGHT_UP_WAIT_MS))),
      ]);
      clearTimeout(timer);
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const client = listener;
      listener = undefined;
      following = false;
      cache.clear();
      if (client) {
        client.removeListener('notification', announced);
        await client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
        client.release();
      }
    },
  };
}
