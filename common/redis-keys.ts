/**
 * Every Redis key the system writes, built from the stack's prefix (so
 * stacks sharing a Redis server stay apart). Nothing else formats a key.
 */
export interface RedisKeys {
  /** The stored result body of one attempt. */
  result(jobId: string, attemptId: string): string;
  /** Marks an attempt whose final report went out, so a redelivered task is skipped. */
  attemptFinished(attemptId: string): string;
  /** A scrape request body too large to travel inside the task. */
  scrapeBody(jobId: string): string;
  /** Caller-supplied content for /api/v1/extract. */
  extractInput(jobId: string): string;
  /** Prefix of the per-domain concurrency slots. */
  domainLeasePrefix: string;
}

export function redisKeys(prefix: string): RedisKeys {
  return {
    result: (jobId, attemptId) => `${prefix}result:${jobId}:${attemptId}`,
    attemptFinished: (attemptId) => `${prefix}attempt-finished:${attemptId}`,
    scrapeBody: (jobId) => `${prefix}scrape-body:${jobId}`,
    extractInput: (jobId) => `${prefix}extract-input:${jobId}`,
    domainLeasePrefix: `${prefix}domain-lease:`,
  };
}
