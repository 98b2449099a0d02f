import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { connectRedis } from '../../common/connections.js';
import { runProcess } from '../../common/process-runner.js';
import { createGuardedDispatcher } from '../../common/ssrf-guard.js';
import { WebhookDeliveryReportSchema, WebhookDeliveryTaskSchema } from '../../proto/gen/trawl/v1/webhooks_pb.js';
import { startHeartbeat } from '../runtime/heartbeat.js';
import { startPool } from '../runtime/pool-runtime.js';
import { attemptDelivery, createDeliveryHandler } from './handler.js';

const POOL = 'webhooks';
/** Longer than one attempt (10 s) with room to publish its report. */
const DRAIN_TIMEOUT_MS = 20_000;

/**
 * The webhooks pool: sends the control plane's signed delivery attempts
 * (`work.webhooks`) and reports each, and answers subscription tests on a
 * request-reply subject, through the same sending path.
 */
const workerId = `${POOL}-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
await runProcess(
  POOL,
  async ({ config, log, nc, js, jsm, names, keys }) => {
    const redis = connectRedis(config);
    const send = { guard: config.ssrf, dispatcher: createGuardedDispatcher(config.ssrf) };
    const handler = createDeliveryHandler({ send, js, names, redis, keys, workerId });
    const running = await startPool(
      { js, jsm, names, log },
      {
        pool: POOL,
        concurrency: config.webhooks.concurrency,
        ackWaitMs: config.worker.ackWaitMs,
        maxDeliver: config.worker.maxDeliver,
        drainTimeoutMs: DRAIN_TIMEOUT_MS,
      },
      handler,
    );
    const tests = nc.subscribe(names.webhookTestSubject, {
      queue: POOL,
      callback: (err, msg) => {
        if (err) return;
        void (async () => {
          const task = fromBinary(WebhookDeliveryTaskSchema, msg.data);
          msg.respond(toBinary(WebhookDeliveryReportSchema, await attemptDelivery({ send, workerId }, task)));
        })().catch((e: unknown) => log.warn({ err: e }, 'a test delivery could not be answered'));
      },
    });
    const heartbeat = startHeartbeat(nc, names, { pool: POOL, workerId });
    log.info({ workerId, concurrency: config.webhooks.concurrency }, 'webhooks worker started');
    return {
      async stop() {
        heartbeat.stop();
        tests.unsubscribe();
        await running.drain();
        await redis.quit().catch(() => undefined);
      },
    };
  },
  { natsName: workerId },
);
