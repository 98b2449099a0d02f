/**
 * Names of every NATS stream, consumer and subject, derived from one prefix
 * so that several stacks (development and tests) can share a NATS server.
 */
export interface NatsNames {
  workStream: string;
  workSubject(pool: string): string;
  poolConsumer(pool: string): string;
  reportsStream: string;
  reportsSubject: string;
  reportsConsumer: string;
  /** Crawl batch reports (what a crawl worker did with a batch of frontier pages), applied by the control planes. */
  crawlReportsStream: string;
  crawlReportsSubject: string;
  crawlReportsConsumer: string;
  deadStream: string;
  deadSubject(pool: string): string;
  logsStream: string;
  logsSubject: string;
  logsConsumer: string;
  /** Every recorded event (SPEC 6), published by the outbox relay with the event id as message id. */
  eventsStream: string;
  eventSubject(type: string): string;
  /** How webhook delivery attempts went, from the webhooks pool to the control plane. */
  webhookReportsStream: string;
  webhookReportsSubject: string;
  webhookReportsConsumer: string;
  /** Core request-reply subject on which the webhooks pool sends a subscription's test delivery. */
  webhookTestSubject: string;
  /** Core (non-stream) subject on which the control plane announces job ends. */
  jobDoneSubject(jobId: string): string;
  workerHeartbeatSubject(pool: string): string;
  /** Core subject carrying the id of an API key that was revoked, regenerated or given new limits; every control plane drops what it cached. */
  apiKeyChangedSubject: string;
}

export function natsNames(prefix: string): NatsNames {
  const upper = prefix.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  const lower = prefix.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  const subj = (s: string) => (lower ? `${lower}.${s}` : s);
  return {
    workStream: `${upper}WORK`,
    workSubject: (pool) => subj(`work.${pool}`),
    poolConsumer: (pool) => `${lower}${pool}`,
    reportsStream: `${upper}REPORTS`,
    reportsSubject: subj('reports.attempts'),
    reportsConsumer: `${lower}control-plane`,
    crawlReportsStream: `${upper}CRAWL_REPORTS`,
    crawlReportsSubject: subj('reports.crawl'),
    crawlReportsConsumer: `${lower}control-plane-crawl`,
    deadStream: `${upper}DEAD`,
    deadSubject: (pool) => subj(`dead.${pool}`),
    logsStream: `${upper}LOGS`,
    logsSubject: subj('logs.requests'),
    logsConsumer: `${lower}analytics-sink`,
    eventsStream: `${upper}EVENTS`,
    eventSubject: (type) => subj(`events.${type}`),
    webhookReportsStream: `${upper}WEBHOOK_REPORTS`,
    webhookReportsSubject: subj('reports.webhooks'),
    webhookReportsConsumer: `${lower}control-plane-webhooks`,
    webhookTestSubject: subj('webhooks.test'),
    jobDoneSubject: (jobId) => subj(`jobs.done.${jobId}`),
    workerHeartbeatSubject: (pool) => subj(`workers.heartbeat.${pool}`),
    apiKeyChangedSubject: subj('api-keys.changed'),
  };
}
