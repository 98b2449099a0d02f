import type { NatsConnection } from '@nats-io/transport-node';

/** Something in this process that caches facts about keys and drops them when told. */
export type KeyForgetter = (keyId: string) => void;

export interface KeyChanges {
  /**
   * A key was revoked, regenerated or given new limits: drops it here at
   * once, and on every other control plane by the time the announcement has
   * reached the NATS server (it is flushed before this resolves).
   */
  announce(keyId: string): Promise<void>;
  stop(): void;
}

/** How long an announcement waits for the NATS server to take it. */
const FLUSH_WAIT_MS = 2_000;

/**
 * Spreads key changes between control-plane replicas over one core NATS
 * subject that every replica subscribes to. A replica that misses a message
 * (reconnecting), or every replica while NATS is unreachable, still drops its
 * cached lookups when they expire (30 s).
 */
export function startKeyChanges(
  nc: NatsConnection,
  subject: string,
  forgetters: readonly KeyForgetter[],
  onError: (err: unknown) => void = () => undefined,
): KeyChanges {
  const forget = (keyId: string) => {
    for (const f of forgetters) f(keyId);
  };
  const sub = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (!err) forget(msg.string());
    },
  });
  return {
    async announce(keyId) {
      forget(keyId);
      try {
        nc.publish(subject, keyId);
        // The change is committed already: with NATS unreachable, the other replicas' caches expire on their own.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([nc.flush(), new Promise((resolve) => (timer = setTimeout(resolve, FLUSH_WAIT_MS)))]).finally(() => clearTimeout(timer));
      } catch (err) {
        onError(err);
      }
    },
    stop() {
      sub.unsubscribe();
    },
  };
}
