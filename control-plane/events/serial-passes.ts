/**
 * Runs `pass` one at a time: a wake while a pass runs queues exactly one
 * more, and a pass that answers true (it found a full batch) is followed at
 * once by another. A failed pass is handed to `failed`; the next wake retries.
 */
export function serialPasses(pass: () => Promise<boolean>, failed: (err: unknown) => void): { wake(): void; stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          if (await pass()) again = true;
        } catch (err) {
          failed(err);
        }
      } while (again && !stopped);
    })().finally(() => (running = null));
  };
  return {
    wake,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** serialPasses woken every `intervalMs` as well as on demand; stop clears the timer and waits for the pass running. */
export function polledPasses(pass: () => Promise<boolean>, failed: (err: unknown) => void, intervalMs: number): { wake(): void; stop(): Promise<void> } {
  const passes = serialPasses(pass, failed);
  const timer = setInterval(passes.wake, intervalMs);
  return {
    wake: passes.wake,
    async stop() {
      clearInterval(timer);
      await passes.stop();
    },
  };
}
