import type { Redis } from 'ioredis';

/**
 * Spacing of requests to one host, shared by every crawl worker through
 * Redis: robots.txt `Crawl-delay` (at most one request per delay) and a pause
 * after a 429 or 503 answer. A slot is taken with SET NX PX: whoever sets the
 * key may fetch now, the others wait out its time to live and try again.
 */
export interface HostPacing {
  /** Waits until the host may be fetched, taking a slot of `delayMs` when the host has a delay; false when the signal aborted first. */
  wait(host: string, delayMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Holds every worker off the host for `pauseMs`. */
  pause(host: string, pauseMs: number): Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/**
 * How long a host found unpaused is taken as unpaused without asking Redis
 * again, so page after page of a site does not cost a round trip each: a
 * pause another worker sets (after a 429 or 503, a second at least) is seen
 * here at most this much later; one this process sets, at once.
 */
export const UNPAUSED_RECHECK_MS = 100;
/** Hosts whose unpaused state is remembered at once; past this the memory starts over. */
const REMEMBERED_HOSTS = 10_000;

export function createHostPacing(redis: Redis, key: (host: string) => string): HostPacing {
  const paused = (host: string) => `${key(host)}:paused`;
  /** Until when each host is taken as unpaused. */
  const unpausedUntil = new Map<string, number>();
  return {
    async wait(host, delayMs, signal) {
      for (;;) {
        if (signal?.aborted) return false;
        if ((unpausedUntil.get(host) ?? 0) <= Date.now()) {
          const pauseLeft = await redis.pttl(paused(host));
          if (pauseLeft > 0) {
            unpausedUntil.delete(host);
            await sleep(pauseLeft, signal);
            continue;
          }
          if (unpausedUntil.size >= REMEMBERED_HOSTS) unpausedUntil.clear();
          unpausedUntil.set(host, Date.now() + UNPAUSED_RECHECK_MS);
        }
        if (delayMs <= 0) return true;
        if ((await redis.set(key(host), '1', 'PX', Math.ceil(delayMs), 'NX')) === 'OK') return true;
        const left = await redis.pttl(key(host));
        await sleep(Math.max(10, left), signal);
      }
    },
    async pause(host, pauseMs) {
      unpausedUntil.delete(host);
      await redis.set(paused(host), '1', 'PX', Math.ceil(pauseMs));
    },
  };
}
