/**
 * Every Redis key the system writes, built from the stack's prefix (so
 * stacks sharing a Redis server stay apart). Nothing else formats a key.
 */
export interface RedisKeys {
  /** The stored result body of one attempt. */
  result(jobId: string, attemptId: string): string;
  /** Where a cacheable result is found by what was asked (`cache: true`): the result key and tier of the attempt that made it. */
  resultCache(identity: string): string;
  /** Marks an attempt whose final report went out, so a redelivered task is skipped. */
  attemptFinished(attemptId: string): string;
  /** A webhook delivery attempt's report as published (`<delivery>:<attempt>`), so a redelivered task is not sent again. */
  webhookAttemptReported(attemptMessageId: string): string;
  /** A scrape request body too large to travel inside the task. */
  scrapeBody(jobId: string): string;
  /** A stored session's cookies for one scrape job (advanced.session_id), read by the worker. */
  sessionCookies(jobId: string): string;
  /** The caller's own proxy URL for one scrape job (advanced.use_own_proxy), read by the worker. */
  ownProxy(jobId: string): string;
  /** Caller-supplied content for /api/v1/extract. */
  extractInput(jobId: string): string;
  /** Every key a job's input may be parked under (the four above), dropped when the job ends. */
  parkedInputs(jobId: string): string[];
  /** A screenshot or PDF of a rendered page (common/artifacts.ts). */
  artifact(name: string): string;
  /** The stored result body of one crawl page (`page` is a digest of its URL). */
  crawlPageResult(crawlId: string, page: string): string;
  /** When a host may next be fetched by any crawl worker (robots Crawl-delay, backoff after 429 and 503). */
  crawlHostPace(host: string): string;
  /** A crawl page's fetched answer kept for `cache` (`page` is a digest of its URL). */
  crawlCache(page: string): string;
  /** The tier that last worked for an account on a host, after an escalation (control-plane/scrape/tier-memory.ts). */
  tierMemory(accountId: string, host: string): string;
  /** Prefix of the per-domain concurrency slots. */
  domainLeasePrefix: string;
  /** Requests made with an API key in one limit period (`counter` names the limit and the period's start). */
  apiKeyRequests(keyId: string, counter: string): string;
  /** An API key's rate-limit state (SPEC 8.1): the per-minute and per-second GCRA times, and its concurrent-call leases. */
  keyRate(keyId: string, window: 'minute' | 'second'): string;
  keyLeases(keyId: string): string;
  /** An account's dispatch entitlement: the admission-rate GCRA time and its in-flight jobs. */
  dispatchRate(accountId: string): string;
  dispatchInFlight(accountId: string): string;
  /** A per-address (or per-e-mail) request counter of one SPEC 8.2 limit; every one starts with ipLimitPrefix. */
  ipLimit(name: string, subject: string): string;
  ipLimitPrefix: string;
}

export function redisKeys(prefix: string): RedisKeys {
  const scrapeBody = (jobId: string) => `${prefix}scrape-body:${jobId}`;
  const sessionCookies = (jobId: string) => `${prefix}session-cookies:${jobId}`;
  const ownProxy = (jobId: string) => `${prefix}own-proxy:${jobId}`;
  const extractInput = (jobId: string) => `${prefix}extract-input:${jobId}`;
  return {
    result: (jobId, attemptId) => `${prefix}result:${jobId}:${attemptId}`,
    resultCache: (identity) => `${prefix}result-cache:${identity}`,
    attemptFinished: (attemptId) => `${prefix}attempt-finished:${attemptId}`,
    webhookAttemptReported: (id) => `${prefix}webhook-attempt:${id}`,
    scrapeBody,
    sessionCookies,
    ownProxy,
    extractInput,
    parkedInputs: (jobId) => [scrapeBody(jobId), sessionCookies(jobId), ownProxy(jobId), extractInput(jobId)],
    artifact: (name) => `${prefix}artifact:${name}`,
    crawlPageResult: (crawlId, page) => `${prefix}crawl-page:${crawlId}:${page}`,
    crawlHostPace: (host) => `${prefix}crawl-pace:${host}`,
    crawlCache: (page) => `${prefix}crawl-cache:${page}`,
    tierMemory: (accountId, host) => `${prefix}tier-memory:${accountId}:${host}`,
    domainLeasePrefix: `${prefix}domain-lease:`,
    apiKeyRequests: (keyId, counter) => `${prefix}api-key-requests:${keyId}:${counter}`,
    // The braces keep one key's (or account's) state in one Redis Cluster slot, as one script touches it all.
    keyRate: (keyId, window) => `${prefix}rate:{${keyId}}:${window}`,
    keyLeases: (keyId) => `${prefix}rate:{${keyId}}:leases`,
    dispatchRate: (accountId) => `${prefix}dispatch:{${accountId}}:rate`,
    dispatchInFlight: (accountId) => `${prefix}dispatch:{${accountId}}:in-flight`,
    ipLimit: (name, subject) => `${prefix}ip-limit:${name}:${subject}`,
    ipLimitPrefix: `${prefix}ip-limit:`,
  };
}
