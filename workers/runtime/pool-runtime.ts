import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { ensureConsumer } from '../../common/jetstream.js';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';

export interface TaskContext {
  deliveryCount: number;
}

export interface PoolHandler<T> {
  /** Throws for a message that is no task: it goes to the dead-letter stream. */
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

/** How long one pull stays open waiting for tasks before the next is sent; also how long a drain may wait for it. */
const PULL_EXPIRES_MS = 1_000;
/** The wait between pulls that keep failing (a server or consumer that is not there). */
const PULL_RETRY_MS = 500;

/**
 * How long the pool waits before it pulls again after `failures` pulls in a
 * row ended in an error. A single failure is followed at once: under load the
 * end of a pull the server expired can go missing, and the client ends that
 * pull itself, with an error, once two heartbeats are missed (docs/benchmarks.md,
 * "Automatic escalation"); by then tasks have waited a second, and must not
 * wait longer. A second failure in a row is a server or consumer that is not
 * there, retried every PULL_RETRY_MS.
 */
export function pullRetryDelayMs(failures: number): number {
  return failures <= 1 ? 0 : PULL_RETRY_MS;
}

export async function ensurePoolConsumer(deps: PoolDeps, opts: PoolOptions): Promise<void> {
  const { names } = deps;
  const changeable = { ack_wait: opts.ackWaitMs * 1e6, max_deliver: opts.maxDeliver, max_ack_pending: 10_000 };
  await ensureConsumer(
    deps.jsm,
    names.workStream,
    {
      durable_name: names.poolConsumer(opts.pool),
      filter_subject: names.workSubject(opts.pool),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...changeable,
    },
    changeable,
  );
}

/**
 * The pool runtime shared by every worker pool: one durable pull consumer,
 * at most `concurrency` tasks in flight (a pull asks only for as many tasks
 * as there are free slots, so no task waits in a local buffer while its ack
 * deadline runs), one timer that tells JetStream every task in flight is
 * still being worked on, redelivery with backoff after a failure, a
 * dead-letter copy after the last delivery, and a graceful drain.
 */
export async function startPool<T>(deps: PoolDeps, opts: PoolOptions, handler: PoolHandler<T>): Promise<RunningPool> {
  await ensurePoolConsumer(deps, opts);
  const consumer = await deps.js.consumers.get(deps.names.workStream, deps.names.poolConsumer(opts.pool));
  let stopping = false;
  let wake: (() => void) | null = null;

  /** Tasks in flight, so the heartbeat can extend them and a drain that runs out of time can hand them back. */
  const inFlight = new Set<JsMsg>();
  const heartbeat = setInterval(
    () => {
      for (const msg of inFlight) {
        try {
          msg.working();
        } catch {
          // The connection is closing; the task is handed back or redelivered.
        }
      }
    },
    Math.max(250, Math.floor(opts.ackWaitMs / 3)),
  );

  const deadLetter = (msg: JsMsg) => deps.js.publish(deps.names.deadSubject(opts.pool), msg.data).catch(() => undefined);

  const run = async (msg: JsMsg) => {
    const deliveryCount = msg.info.deliveryCount;
    const ctx: TaskContext = { deliveryCount };
    let task: T;
    try {
      task = handler.decode(msg.data);
    } catch (err) {
      deps.log.error({ err, pool: opts.pool }, 'undecodable task; moved to the dead-letter stream');
      await deadLetter(msg);
      msg.term('undecodable');
      return;
    }
    try {
      await handler.handle(task, ctx);
      msg.ack();
    } catch (err) {
      if (deliveryCount >= opts.maxDeliver) {
        deps.log.error({ err, pool: opts.pool, deliveryCount }, 'task failed on its last delivery');
        await deadLetter(msg);
        await handler.exhausted(task, err, ctx).catch((e) => deps.log.error({ err: e }, 'reporting an exhausted task failed'));
        msg.term('max deliveries');
      } else {
        deps.log.warn({ err, pool: opts.pool, deliveryCount }, 'task failed; it will be redelivered');
        msg.nak(1_000 * deliveryCount);
      }
    }
  };

  const settle = (msg: JsMsg) => {
    inFlight.delete(msg);
    const w = wake;
    wake = null;
    w?.();
  };

  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // Pulls in a row that failed; a pull that ends as pulls do sets it back to 0.
  let failures = 0;
  const failed = async (err: unknown, message: string) => {
    failures++;
    deps.log.warn({ err, failures }, message);
    const delay = pullRetryDelayMs(failures);
    if (delay > 0) await pause(delay);
  };

  const loop = (async () => {
    while (!stopping) {
      const free = opts.concurrency - inFlight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      let batch;
      try {
        batch = await consumer.fetch({ max_messages: free, expires: PULL_EXPIRES_MS });
      } catch (err) {
        await failed(err, 'pulling tasks failed; retrying');
        continue;
      }
      try {
        for await (const msg of batch) {
          inFlight.add(msg);
          void run(msg).finally(() => settle(msg));
        }
        failures = 0;
      } catch (err) {
        // A pull that ends in an error (heartbeats missed, leader change, consumer reset, server restart): pull again.
        await failed(err, 'a pull ended with an error; pulling again');
      }
    }
  })();

  return {
    inFlight: () => inFlight.size,
    async drain() {
      stopping = true;
      const w = wake;
      wake = null;
      w?.();
      await loop;
      const until = Date.now() + opts.drainTimeoutMs;
      while (inFlight.size > 0 && Date.now() < until) await pause(50);
      clearInterval(heartbeat);
      // Out of time: hand what is still running back to JetStream at once rather than after the ack wait.
      for (const msg of inFlight) {
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
