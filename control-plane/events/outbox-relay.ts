import { headers as natsHeaders } from '@nats-io/transport-node';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { withTransaction } from '../billing/ledger.js';
import { renderEventBody, type LoadStoredResult } from './event-body.js';
import { serialPasses } from './serial-passes.js';
import { lockUnpublishedEvents, publishAndFanOut } from './outbox-store.js';

export interface OutboxRelayDeps {
  pool: pg.Pool;
  js: JetStreamClient;
  names: NatsNames;
  redis: Redis;
  log: Logger;
  /** Called after a batch created deliveries, so they go out without waiting for the next poll. */
  deliveriesCreated(): void;
}

/** Events taken per transaction. */
const RELAY_BATCH = 500;
/** How long a pass waits after the notification that woke it, for the events committed just after. */
const GATHER_MS = 20;
/**
 * The least time from one pass's start to the next's. Under a steady stream
 * of jobs each pass then takes the events of many, in one transaction (at 90
 * scrapes a second, a pass every 20 ms cost Postgres about half a millisecond
 * a job more); an event waits at most this long behind the pass before it.
 */
export const RELAY_PASS_INTERVAL_MS = 100;
/** The poll behind LISTEN: a notification lost with a dropped connection delays an event by at most this. */
const POLL_MS = 1_000;

/** A stored result, read from Redis by its key. */
export function storedResultLoader(redis: Redis): LoadStoredResult {
  return async (key) => (await redis.getBuffer(key)) ?? undefined;
}

/**
 * Publishes one batch of recorded events, in one transaction: locks them
 * (SKIP LOCKED, so relays in several control planes share the work),
 * renders each body, publishes each to the EVENTS stream with the event id
 * as message id, then marks them published and creates their deliveries. A
 * relay that dies before the commit leaves the events unpublished; the next
 * pass publishes them again and JetStream drops the duplicates by id.
 * Answers how many events it published.
 */
export async function relayOnce(deps: Omit<OutboxRelayDeps, 'deliveriesCreated'>, loadResult: LoadStoredResult): Promise<{ events: number; deliveries: number }> {
  return withTransaction(deps.pool, async (client) => {
    const events = await lockUnpublishedEvents(client, RELAY_BATCH);
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const rendered = await Promise.all(events.map(async (e) => ({ event: e, body: await renderEventBody(e, loadResult) })));
    await Promise.all(
      rendered.map(({ event, body }) => {
        const h = natsHeaders();
        h.set('Trawl-Account-Id', event.account_id);
        return deps.js.publish(deps.names.eventSubject(event.type), body, { msgID: event.id, headers: h });
      }),
    );
    const deliveries = await publishAndFanOut(client, rendered.map(({ event, body }) => ({ id: event.id, body })));
    return { events: events.length, deliveries };
  });
}

/**
 * Runs the relay: a pass shortly after an outbox notification (a trigger
 * notifies at the commit of each statement that records events) and every
 * second, one pass at a time, at most one start every RELAY_PASS_INTERVAL_MS,
 * passes repeated while batches come back full.
 * A batch that is not full took every event committed before it began; one
 * committed since has notified, and that notification queues the next pass.
 */
export async function startOutboxRelay(deps: OutboxRelayDeps): Promise<{ stop(): Promise<void>; wake(): void }> {
  const loadResult = storedResultLoader(deps.redis);
  const passes = serialPasses(
    async () => {
      const done = await relayOnce(deps, loadResult);
      if (done.deliveries > 0) deps.deliveriesCreated();
      return done.events === RELAY_BATCH;
    },
    (err) => deps.log.error({ err }, 'relaying events failed; the next pass retries'),
  );
  // Notifications arriving within GATHER_MS of the first share one pass: a job's start and end, a burst's events.
  // A pass starts no sooner than RELAY_PASS_INTERVAL_MS after the one before; a full batch is still followed at once.
  let gathering: NodeJS.Timeout | null = null;
  let lastStart = -Infinity;
  const pass = () => {
    gathering ??= setTimeout(
      () => {
        gathering = null;
        lastStart = Date.now();
        passes.wake();
      },
      Math.max(GATHER_MS, lastStart + RELAY_PASS_INTERVAL_MS - Date.now()),
    );
  };

  let listener: pg.PoolClient | null = null;
  let closed = false;
  const listen = async () => {
    try {
      const client = await deps.pool.connect();
      // Stopped while connecting: the pool must get every client back before it can end.
      if (closed) return client.release();
      listener = client;
      listener.on('notification', pass);
      listener.on('error', (err) => {
        deps.log.warn({ err }, 'the outbox listener lost its connection; polling until it is back');
        listener?.release(true);
        listener = null;
      });
      await listener.query('LISTEN event_outbox');
    } catch (err) {
      deps.log.warn({ err }, 'listening for outbox events failed; polling until it works');
      listener?.release(true);
      listener = null;
    }
  };
  await listen();
  const timer = setInterval(() => {
    if (!listener) void listen();
    pass();
  }, POLL_MS);
  pass();

  return {
    wake: pass,
    async stop() {
      closed = true;
      clearInterval(timer);
      if (gathering) clearTimeout(gathering);
      await passes.stop();
      if (listener) {
        listener.removeAllListeners('notification');
        await listener.query('UNLISTEN event_outbox').catch(() => undefined);
        listener.release();
      }
    },
  };
}
