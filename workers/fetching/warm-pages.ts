import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/**
 * A page kept open between the tasks of one owner (an account) on one origin:
 * its context, its tab, and the tab's renderer, which a fresh context would
 * start again for every task (most of a browser page's CPU on a small page).
 */
export interface WarmPage {
  /** `${owner} ${origin}`: only a task of the same owner on the same origin takes it. */
  readonly key: string;
  readonly origin: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** The tab's DevTools session: its request filter; clears the origin's storage and stops the page's scripts while it waits. */
  readonly cdp: CDPSession;
  /** Tasks it has served. */
  uses: number;
}

export interface WarmPagesOptions {
  /** Pages waiting at most, over all keys; the longest waiting is closed first. */
  maxIdle: number;
  /** Tasks a page serves before it is closed (memory a long-lived tab gathers). */
  maxUses: number;
  /** How long a page waits for its next task before it is closed. */
  idleMs: number;
}

export interface WarmPages {
  /**
   * A waiting page for `key`, its scripts running again, or undefined. A page
   * of the key still being wiped (its task just ended) is waited for: the
   * wipe takes milliseconds, a fresh context hundreds of milliseconds of CPU.
   */
  take(key: string): Promise<WarmPage | undefined>;
  /**
   * Wipes what the task left (other tabs, cookies, the origin's storage,
   * sessionStorage and window.name), stops its scripts and keeps it for the
   * key's next task; closes it instead when it is worn out, when the wipe
   * fails, or when it is not wanted.
   */
  keep(entry: WarmPage): Promise<void>;
  /** Pages waiting now. */
  idle(): number;
  close(): Promise<void>;
}

/** How long a tab serves: tasks before it is closed, and the wait for the next one (its pages stay at most the concurrency). */
export const WARM_PAGE_LIMITS = { maxUses: 50, idleMs: 30_000 } as const;

/** The longest a wipe may take; a tab that does not answer in time (a page spinning its main thread) is closed. */
const WIPE_TIMEOUT_MS = 2_000;

/**
 * The longest a task waits for a tab of its key still being wiped before it opens a fresh context (a wipe takes a
 * few milliseconds unless the page spins its main thread).
 */
const TAKE_WAIT_MS = 250;

/** What a task leaves in the tab itself, which no DevTools call clears. */
const WIPE_SCRIPT = `sessionStorage.clear(); window.name = '';`;

export function warmKey(owner: string, origin: string): string {
  return `${owner} ${origin}`;
}

export function createWarmPages(opts: WarmPagesOptions): WarmPages {
  // Waiting pages in the order they were put back (the oldest first), each with its idle timer.
  const waiting: Array<{ entry: WarmPage; timer: NodeJS.Timeout }> = [];
  // Pages being wiped, by key, and what each wipe's end wakes: the takers of the key waiting for one.
  const wiping = new Map<string, { count: number; wake: Array<() => void> }>();
  let closed = false;

  const discard = (entry: WarmPage) => entry.context.close().catch(() => undefined);
  const remove = (i: number) => {
    const [slot] = waiting.splice(i, 1);
    clearTimeout(slot!.timer);
    return slot!.entry;
  };

  return {
    async take(key) {
      const giveUpAt = performance.now() + TAKE_WAIT_MS;
      for (;;) {
        for (let i = waiting.length - 1; i >= 0; i--) {
          if (waiting[i]!.entry.key !== key) continue;
          const entry = remove(i);
          try {
            await entry.cdp.send('Emulation.setScriptExecutionDisabled', { value: false });
            return entry;
          } catch {
            // The tab or its renderer went away while it waited.
            await discard(entry);
          }
        }
        const pending = wiping.get(key);
        const wait = giveUpAt - performance.now();
        if (!pending || closed || wait <= 0) return undefined;
        // Woken when one of the key's wipes ends, kept or discarded (another taker may get it first), or at the limit.
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          pending.wake.push(resolve);
          timer = setTimeout(resolve, wait);
        });
        clearTimeout(timer);
      }
    },

    async keep(entry) {
      if (closed || entry.uses >= opts.maxUses || entry.page.isClosed()) return discard(entry);
      const pending = wiping.get(entry.key) ?? { count: 0, wake: [] };
      pending.count++;
      wiping.set(entry.key, pending);
      try {
        await keepWiped(entry);
      } finally {
        if (--pending.count === 0) wiping.delete(entry.key);
        for (const wake of pending.wake.splice(0)) wake();
      }
    },

    idle: () => waiting.length,

    async close() {
      closed = true;
      await Promise.all(waiting.splice(0).map((slot) => (clearTimeout(slot.timer), discard(slot.entry))));
    },
  };

  /** Wipes the page and puts it among the waiting, or closes it when the wipe fails or the pool closed meanwhile. */
  async function keepWiped(entry: WarmPage): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const wiped = await Promise.race([
      wipe(entry).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), WIPE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!wiped || closed) return discard(entry);
    const slot = {
      entry,
      timer: setTimeout(() => {
        const i = waiting.indexOf(slot);
        if (i >= 0) void discard(remove(i));
      }, opts.idleMs),
    };
    slot.timer.unref();
    waiting.push(slot);
    while (waiting.length > opts.maxIdle) void discard(remove(0));
  }
}

/**
 * Leaves the tab as a fresh context would find the origin: no tab the page
 * opened, no cookies, no storage of the origin, an empty HTTP cache (the
 * context's own), an empty sessionStorage and window.name; then stops its scripts (timers, requests they would make) until it is taken.
 * The page's document stays until the next task navigates away from it.
 */
async function wipe(entry: WarmPage): Promise<void> {
  await Promise.all(entry.context.pages().filter((p) => p !== entry.page).map((p) => p.close()));
  await Promise.all([
    entry.page.evaluate(WIPE_SCRIPT),
    entry.context.clearCookies(),
    entry.cdp.send('Storage.clearDataForOrigin', { origin: entry.origin, storageTypes: 'all' }),
    entry.cdp.send('Network.clearBrowserCache'),
  ]);
  await entry.cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
}
