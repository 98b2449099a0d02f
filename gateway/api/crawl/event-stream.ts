import { PassThrough } from 'node:stream';
import type { CallOptions } from '@connectrpc/connect';
import { CRAWL_LIMITS } from '../../../common/crawl-config.js';
import type { ReadCrawlEventsResponse } from '../../../proto/gen/trawl/v1/crawl_pb.js';

export interface EventSource {
  /** The stored events after `afterId`, and whether the crawl has ended with nothing after them. */
  read(afterId: bigint): Promise<ReadCrawlEventsResponse>;
}

export interface StreamTiming {
  heartbeatMs: number;
  maxMs: number;
  pollMs: number;
}

export const STREAM_TIMING: StreamTiming = {
  heartbeatMs: CRAWL_LIMITS.heartbeatMs,
  maxMs: CRAWL_LIMITS.streamMaxMs,
  pollMs: CRAWL_LIMITS.streamPollMs,
};

/** One Server-Sent Event; `id` only for stored events, so Last-Event-ID always names one of them. */
export function sseFrame(event: string, data: unknown, id?: bigint): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Last-Event-ID as a stored event id; anything else starts from the beginning. */
export function lastEventId(header: string | undefined): bigint {
  return header && /^\d{1,18}$/.test(header.trim()) ? BigInt(header.trim()) : 0n;
}

/**
 * Writes a crawl's stored events from `afterId` on, as they are recorded
 * (read every `pollMs` from the control plane, so any gateway replica serves
 * any stream), a heartbeat every `heartbeatMs`, and closes after
 * crawl.completed, or with a `timeout` event after `maxMs`; the client
 * reconnects with Last-Event-ID and misses nothing. `first` is the read the
 * route already made (it answered 404 for another account's crawl).
 */
export function crawlEventStream(source: EventSource, afterId: bigint, first: ReadCrawlEventsResponse, timing: StreamTiming = STREAM_TIMING): PassThrough {
  const out = new PassThrough();
  let closed = false;
  out.on('close', () => (closed = true));
  const started = Date.now();
  let lastBeat = Date.now();
  let last = afterId;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const write = (batch: ReadCrawlEventsResponse): boolean => {
    let text = '';
    let finished = false;
    for (const e of batch.events) {
      text += sseFrame(e.event, e.data ?? {}, e.id);
      last = e.id;
      if (e.event === 'crawl.completed') finished = true;
    }
    if (text) out.write(text);
    return finished || (batch.ended && batch.events.length === 0);
  };

  void (async () => {
    try {
      let batch = first;
      for (;;) {
        if (write(batch)) break;
        if (closed) return;
        if (Date.now() - started >= timing.maxMs) {
          out.write(sseFrame('timeout', { message: 'The stream reached its longest duration; reconnect with Last-Event-ID to resume', last_event_id: Number(last) }));
          break;
        }
        if (Date.now() - lastBeat >= timing.heartbeatMs) {
          out.write(sseFrame('heartbeat', { timestamp: new Date().toISOString() }));
          lastBeat = Date.now();
        }
        if (batch.events.length === 0) await sleep(timing.pollMs);
        if (closed) return;
        batch = await source.read(last);
      }
    } catch {
      // The control plane went away mid-stream: the client reconnects with Last-Event-ID.
    }
    out.end();
  })();
  return out;
}

/** Options of a stream's later reads: the public request was counted by the first. */
export function followUpOptions(options: CallOptions, header: string): CallOptions {
  return { timeoutMs: options.timeoutMs, headers: { ...(options.headers as Record<string, string>), [header]: '1' } };
}
