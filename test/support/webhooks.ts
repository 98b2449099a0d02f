import type { IsolatedStack } from '../../deploy/local/isolated-stack.js';

/** Waits until `check` answers a value that is not undefined, polling every 50 ms. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The deliveries of an event type to a URL, as recorded. */
export async function deliveriesTo(stack: IsolatedStack, url: string) {
  const res = await stack.pool.query<{
    id: string; event_type: string; status: string; attempt_count: number; subscription_id: string | null;
    attempts: Array<{ attempt: number; started_at: string; finished_at: string; status_code: number | null; error: string | null }>;
    next_attempt_at: Date | null; response_status_code: number | null; error_message: string | null;
  }>('SELECT * FROM webhook_deliveries WHERE url = $1 ORDER BY created_at', [url]);
  return res.rows;
}
