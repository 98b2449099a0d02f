/**
 * At most `size` tasks at once, the others waiting in arrival order: the
 * fetch slots a crawl worker shares among its batches.
 */
export interface Slots {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createSlots(size: number): Slots {
  let free = size;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    async run(task) {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
