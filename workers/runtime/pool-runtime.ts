import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';

export interface TaskContext {
  deliveryCount: number;
  /** Extends the ack deadline; the runtime also calls it on a timer. */
  working(): void;
}

/** Thrown by a handler for a transient fault: the task is redelivered after delayMs. */
export class RetryLaterError extends Error {
  constructor(message: string, readonly delayMs = 2_000) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

export interface PoolHandler<T> {
  decode(data: Uint8Array): T;
  handle(task: T, ctx: TaskContext): Promise<void>;
  /** Called once when a task has failed on its last allowed delivery. */
  exhausted(task: T, err: unknown, ctx: TaskContext): Promise<void>;
}

export interface PoolOptions {
  pool: string;
  concurrency: number;
  ackWaitMs: number;
  maxDeliver: number;
  /** How long a drain waits for tasks in flight before giving up on them. */
  drainTimeoutMs: number;
}

export interface PoolDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  log: Logger;
}

export interface RunningPool {
  inFlight(): number;
  /** Stops pulling, waits for tasks in flight, then returns. */
  drain(): Promise<void>;
}

export async function ensurePoolConsumer(deps: PoolDeps, opts: PoolOptions): Promise<void> {
  const { names } = deps;
  const config = {
    durable_name: names.poolConsumer(opts.pool),
    filter_subject: names.workSubject(opts.pool),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: opts.ackWaitMs * 1e6,
    max_deliver: opts.maxDeliver,
    max_ack_pending: 10_000,
  };
  try {
    await deps.jsm.consumers.info(names.workStream, config.durable_name);
    await deps.jsm.consumers.update(names.workStream, config.durable_name, {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
      max_ack_pending: config.max_ack_pending,
    });
  } catch {
    await deps.jsm.consumers.add(names.workStream, config).catch(async (err) => {
      // Another replica created it first.
      await deps.jsm.consumers.info(names.workStream, config.durable_name).catch(() => {
        throw err;
      });
    });
  }
}

/**
 * The pool runtime shared by every worker pool: one durable pull consumer,
 * at most `concurrency` tasks in flight (it pulls only as many as it has free
 * slots), heartbeats while a task runs, redelivery of transient failures,
 * a dead-letter copy after the last delivery, and a graceful drain.
 */
export async function startPool<T>(deps: PoolDeps, opts: PoolOptions, handler: PoolHandler<T>): Promise<RunningPool> {
  await ensurePoolConsumer(deps, opts);
  const consumer = await deps.js.consumers.get(deps.names.workStream, deps.names.poolConsumer(opts.pool));
  let active = 0;
  let stopping = false;
  let wake: (() => void) | null = null;
  const heartbeatEvery = Math.max(250, Math.floor(opts.ackWaitMs / 3));

  /** Tasks in flight and their heartbeat timers, so a drain that runs out of time can hand them back. */
  const inFlight = new Map<JsMsg, NodeJS.Timeout>();
  const beat = (msg: JsMsg) => {
    try {
      msg.working();
    } catch {
      // The connection is closing; the task is handed back or redelivered.
    }
  };

  const run = async (msg: JsMsg) => {
    const deliveryCount = msg.info.deliveryCount;
    const ctx: TaskContext = { deliveryCount, working: () => beat(msg) };
    const heartbeat = setInterval(() => beat(msg), heartbeatEvery);
    inFlight.set(msg, heartbeat);
    let task: T;
    try {
      task = handler.decode(msg.data);
    } catch (err) {
      deps.log.error({ err, pool: opts.pool }, 'undecodable task; moved to the dead-letter stream');
      clearInterval(heartbeat);
      await deps.js.publish(deps.names.deadSubject(opts.pool), msg.data).catch(() => undefined);
      msg.term('undecodable');
      return;
    }
    try {
      await handler.handle(task, ctx);
      msg.ack();
    } catch (err) {
      if (deliveryCount >= opts.maxDeliver) {
        deps.log.error({ err, pool: opts.pool, deliveryCount }, 'task failed on its last delivery');
        await deps.js.publish(deps.names.deadSubject(opts.pool), msg.data).catch(() => undefined);
        await handler.exhausted(task, err, ctx).catch((e) => deps.log.error({ err: e }, 'reporting an exhausted task failed'));
        msg.term('max deliveries');
      } else {
        const delay = err instanceof RetryLaterError ? err.delayMs : 1_000 * deliveryCount;
        deps.log.warn({ err, pool: opts.pool, deliveryCount }, 'task failed; it will be redelivered');
        msg.nak(delay);
      }
    } finally {
      clearInterval(heartbeat);
      inFlight.delete(msg);
    }
  };

  const loop = (async () => {
    while (!stopping) {
      const free = opts.concurrency - active;
      if (free <= 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      let batch;
      try {
        batch = await consumer.fetch({ max_messages: free, expires: 1_000 });
      } catch (err) {
        deps.log.warn({ err }, 'pulling tasks failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      try {
        for await (const msg of batch) {
          active += 1;
          void run(msg).finally(() => {
            active -= 1;
            const w = wake;
            wake = null;
            w?.();
          });
        }
      } catch (err) {
        // A pull that ends in an error status (leader change, consumer reset, server restart): pull again shortly.
        deps.log.warn({ err }, 'a pull ended with an error; pulling again');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  return {
    inFlight: () => active,
    async drain() {
      stopping = true;
      const w = wake;
      wake = null;
      w?.();
      await loop;
      const until = Date.now() + opts.drainTimeoutMs;
      while (active > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      // Out of time: hand what is still running back to JetStream at once rather than after the ack wait.
      for (const [msg, heartbeat] of inFlight) {
        clearInterval(heartbeat);
        try {
          msg.nak();
        } catch {
          // Already closing; JetStream redelivers after the ack wait.
        }
      }
      inFlight.clear();
    },
  };
}
