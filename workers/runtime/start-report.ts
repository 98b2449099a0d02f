/*
 * Most tier-1 attempts end within STARTED_REPORT_DELAY_MS (common/limits.ts): they send one report, FINISHED with
 * the time they started, and the control plane records the start with the end in one statement
 * (docs/decisions/0035-one-report-for-a-quick-attempt.md). A longer attempt reports STARTED when the delay has
 * passed, so its job shows as running and job.started goes out while it works.
 */

/** An attempt's STARTED report, sent only if the attempt is still running after a delay. */
export interface StartReport {
  /** Epoch ms at which the worker took the task up. */
  readonly at: number;
  /**
   * Called as the attempt finishes: cancels the report when it has not gone out and answers null (the FINISHED
   * report then carries `at`), or answers its publication, which the FINISHED report must follow.
   */
  end(): Promise<void> | null;
}

/** Schedules `send` (the STARTED report) for `delayMs` from now, unless the attempt ends first. */
export function scheduleStartReport(send: () => Promise<void>, delayMs: number): StartReport {
  const at = Date.now();
  let sending: Promise<void> | null = null;
  const timer = setTimeout(() => {
    sending = send();
    // A failed publication fails the FINISHED report that awaits it; nothing else waits on it.
    sending.catch(() => undefined);
  }, delayMs);
  return {
    at,
    end() {
      clearTimeout(timer);
      return sending;
    },
  };
}
