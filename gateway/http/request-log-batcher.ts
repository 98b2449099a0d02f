import type { Logger } from '../../common/logger.js';
import { encodeRequestLogBatch, type RequestLogRecord } from '../../common/request-log-codec.js';

export interface RequestLogBatcherOptions {
  /** A batch goes out this long after its first record at the latest. */
  windowMs: number;
  /** ...or as soon as it holds this many records. */
  maxRecords: number;
}

export interface RequestLogBatcher {
  add(record: RequestLogRecord): void;
  /** Publishes what is gathered and waits for every publish under way. */
  stop(): Promise<void>;
}

/**
 * Gathers request-log records and publishes them as one RequestLogBatch per
 * window, so a request costs an array push instead of a JetStream publish.
 * Publishing never delays or fails a response: an error is only logged.
 */
export function createRequestLogBatcher(
  publish: (data: Uint8Array) => Promise<unknown>,
  log: Logger,
  opts: RequestLogBatcherOptions,
): RequestLogBatcher {
  let pending: RequestLogRecord[] = [];
  let timer: NodeJS.Timeout | null = null;
  const inFlight = new Set<Promise<void>>();

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const records = pending;
    pending = [];
    const sent: Promise<void> = publish(encodeRequestLogBatch(records)).then(
      () => undefined,
      (err: unknown) => log.warn({ err, records: records.length }, 'publishing request logs failed'),
    );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };

  return {
    add(record) {
      pending.push(record);
      if (pending.length >= opts.maxRecords) flush();
      else timer ??= setTimeout(flush, opts.windowMs);
    },
    async stop() {
      flush();
      await Promise.all(inFlight);
    },
  };
}
