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

/**
 * Spreads key changes between control-plane replicas over one core NATS
 * subject that every replica subscribes to. A replica that misses a message
 * (reconnecting) still drops its cached lookups when they expire.
 */
export function startKeyChanges(nc: NatsConnection, subject: string, forgetters: readonly KeyForgetter[]): KeyChanges {
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
      nc.publish(subject, keyId);
      await nc.flush();
    },
    stop() {
      sub.unsubscribe();
    },
  };
}
