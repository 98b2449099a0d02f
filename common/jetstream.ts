import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerUpdateConfig,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { NatsNames } from './nats-names.js';

const DAY_NS = 24 * 3600 * 1e9;
/** Window in which JetStream drops a second message with the same id. */
const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;

const isApiError = (err: unknown, code: number) => err instanceof JetStreamApiError && err.code === code;
export const isStreamNotFound = (err: unknown) => isApiError(err, JetStreamApiCodes.StreamNotFound);
export const isConsumerNotFound = (err: unknown) => isApiError(err, JetStreamApiCodes.ConsumerNotFound);

/** Every stream the system uses. */
export function streamConfigs(names: NatsNames) {
  return [
    { name: names.workStream, subjects: [names.workSubject('*')], retention: RetentionPolicy.Workqueue, max_age: DAY_NS },
    { name: names.reportsStream, subjects: [names.reportsSubject], retention: RetentionPolicy.Workqueue, max_age: DAY_NS },
    { name: names.crawlReportsStream, subjects: [names.crawlReportsSubject], retention: RetentionPolicy.Workqueue, max_age: DAY_NS },
    { name: names.deadStream, subjects: [names.deadSubject('*')], retention: RetentionPolicy.Limits, max_age: 7 * DAY_NS },
    // Every event, kept a day for any consumer; the subject wildcard takes dotted event types (crawl.page.completed).
    { name: names.eventsStream, subjects: [names.eventSubject('>')], retention: RetentionPolicy.Limits, max_age: DAY_NS },
    { name: names.webhookReportsStream, subjects: [names.webhookReportsSubject], retention: RetentionPolicy.Workqueue, max_age: DAY_NS },
    { name: names.logsStream, subjects: [names.logsSubject], retention: RetentionPolicy.Workqueue, max_age: 7 * DAY_NS },
  ];
}

export function streamNames(names: NatsNames): string[] {
  return streamConfigs(names).map((s) => s.name);
}

/**
 * Creates the streams that are missing. Idempotent: every process calls it at
 * start so any of them may come up first; only a not-found answer leads to a
 * create, any other error is thrown.
 */
export async function ensureStreams(jsm: JetStreamManager, names: NatsNames): Promise<void> {
  for (const stream of streamConfigs(names)) {
    try {
      await jsm.streams.info(stream.name);
      continue;
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
    }
    try {
      await jsm.streams.add({ ...stream, storage: StorageType.File, discard: DiscardPolicy.Old, duplicate_window: DUPLICATE_WINDOW_NS });
    } catch (err) {
      // Another process created it between the look-up and the add.
      await jsm.streams.info(stream.name).catch(() => {
        throw err;
      });
    }
  }
}

/**
 * Creates a durable consumer when it is missing, or brings the settings that
 * may change (`update`) up to date when it exists. Only the typed not-found
 * error leads to a create; a create that loses a race with another replica
 * is accepted when the consumer then exists.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
  update?: Partial<ConsumerUpdateConfig>,
): Promise<void> {
  try {
    await jsm.consumers.info(stream, config.durable_name);
    if (update) await jsm.consumers.update(stream, config.durable_name, update);
    return;
  } catch (err) {
    if (!isConsumerNotFound(err)) throw err;
  }
  try {
    await jsm.consumers.add(stream, config);
  } catch (err) {
    await jsm.consumers.info(stream, config.durable_name).catch(() => {
      throw err;
    });
  }
}
