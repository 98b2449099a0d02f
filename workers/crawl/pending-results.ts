import type { Redis } from 'ioredis';

/** Bytes of results a batch holds before it writes them out rather than at its end. */
const FLUSH_BYTES = 1 << 20;

/**
 * The stored results of a batch's pages, written to Redis together: each
 * page's result joins the batch's next write (one pipeline, one socket
 * write, for up to a megabyte of results or the rest of the batch) instead of
 * costing a round trip of its own. A page never waits for it; `drain` writes
 * what is left and fails when any write failed, before the report naming the
 * results goes out, so a report never names a result that was not stored.
 */
export class PendingResults {
  private queued: Array<[string, Buffer]> = [];
  private bytes = 0;
  private readonly writes: Promise<void>[] = [];
  private failure: unknown = null;

  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly flushBytes = FLUSH_BYTES,
  ) {}

  add(key: string, value: Buffer): void {
    this.queued.push([key, value]);
    this.bytes += value.byteLength;
    if (this.bytes >= this.flushBytes) this.writes.push(this.write());
  }

  /** Writes what is queued and waits for every write; throws the first failure. */
  async drain(): Promise<void> {
    this.writes.push(this.write());
    await Promise.all(this.writes.splice(0));
    if (this.failure !== null) throw this.failure;
  }

  private async write(): Promise<void> {
    const items = this.queued;
    this.queued = [];
    this.bytes = 0;
    if (items.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [key, value] of items) pipeline.set(key, value, 'EX', this.ttlSeconds);
    try {
      const replies = (await pipeline.exec()) ?? [];
      const failed = replies.find(([err]) => err);
      if (failed) throw failed[0];
    } catch (err) {
      this.failure ??= err;
    }
  }
}
