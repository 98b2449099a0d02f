/**
 * Group commit for small writes: items added while a batch is being written,
 * or in the same turn of the event loop (or within delayMs, when given), go
 * out together in the next batch (at most maxBatch items). add() settles when
 * the item's batch is written, or rejects with the batch's error.
 */
export interface WriteBatcher<T> {
  add(item: T): Promise<void>;
  /** Resolves once everything added so far is written (or has failed). */
  drain(): Promise<void>;
}

export function createWriteBatcher<T>(write: (items: T[]) => Promise<void>, opts: { maxBatch: number; delayMs?: number }): WriteBatcher<T> {
  let pending: Array<{ item: T; resolve: () => void; reject: (err: unknown) => void }> = [];
  let writing: Promise<void> | null = null;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || writing) return;
    scheduled = true;
    if (opts.delayMs) setTimeout(flush, opts.delayMs);
    else setImmediate(flush);
  };
  const flush = () => {
    scheduled = false;
    const batch = pending.slice(0, opts.maxBatch);
    pending = pending.slice(batch.length);
    if (batch.length === 0) return;
    writing = write(batch.map((b) => b.item)).then(
      () => batch.forEach((b) => b.resolve()),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
    void writing.finally(() => {
      writing = null;
      if (pending.length > 0) schedule();
    });
  };

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        schedule();
      });
    },
    async drain() {
      while (writing || pending.length > 0) {
        if (writing) await writing;
        else await new Promise<void>((resolve) => setTimeout(resolve, opts.delayMs ?? 0));
      }
    },
  };
}
