/**
 * Webhook delivery throughput and delay: 1,000 job.completed events are
 * recorded in one transaction through the same outbox CTE a job end uses, for
 * an account with a subscription on a local HTTPS receiver (certificate of a
 * private CA the stack trusts through NODE_EXTRA_CA_CERTS). Measured per run:
 * deliveries per second (first commit to last receipt) and the delay from the
 * event's commit (the job end) to its receipt, p50 and p99. Three runs; the
 * ranges are printed.
 *
 *   npm run bench:webhooks [-- --events 1000 --runs 3]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { bootIsolatedStack } from '../../deploy/local/isolated-stack.js';
import { withTransaction } from '../../control-plane/billing/ledger.js';
import { recordEvent } from '../../control-plane/events/record-event.js';
import { sealSecret } from '../../control-plane/events/signing.js';
import { testCa } from '../../test/fixtures/test-ca.js';
import { startWebhookReceiver } from '../../test/fixtures/webhook-receiver.js';
import { createTestUser } from '../../test/support/users.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '1000' }, runs: { type: 'string', default: '3' } } });
const events = Number(values.events);
const runs = Number(values.runs);
const sig = (n: number) => String(Number(n.toPrecision(3)));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

process.stdout.write('booting the stack...\n');
// ClickHouse database names take no hyphen, so the stack is named bench_wh.
const stack = await bootIsolatedStack({ name: 'bench_wh', redisDb: 8, env: { LOG_LEVEL: 'error', NODE_EXTRA_CA_CERTS: testCa().caPath } });
const receiver = await startWebhookReceiver();
const results: Array<{ perSecond: number; p50: number; p99: number }> = [];
try {
  for (let run = 1; run <= runs; run++) {
    const user = await createTestUser(stack, { microcents: 1_000_000 });
    const url = `${receiver.url}?run=${run}`;
    await stack.pool.query(
      `INSERT INTO webhook_subscriptions (user_id, name, url, events, secret_sealed) VALUES ($1, 'bench', $2, '{job.completed}', $3)`,
      [user.userId, url, sealSecret('whsec_bench', stack.config.masterKeyHex)],
    );
    await withTransaction(stack.pool, async (client) => {
      for (let i = 0; i < events; i++) {
        await recordEvent(client, { accountId: user.accountId, type: 'job.completed', payload: { job_id: randomUUID(), status: 'succeeded' } });
      }
    });
    // The job ends commit together: the delay runs from the moment the commit returned.
    const commitAt = Date.now();
    const got = await receiver.waitFor(events, 120_000, (r) => r.path.endsWith(`?run=${run}`));
    const delays = got.map((r) => r.at - commitAt).sort((a, b) => a - b);
    const last = Math.max(...got.map((r) => r.at));
    results.push({ perSecond: events / ((last - commitAt) / 1000), p50: percentile(delays, 50), p99: percentile(delays, 99) });
    const r = results[results.length - 1]!;
    process.stdout.write(`run ${run}: ${sig(r.perSecond)} deliveries/s, delay from commit to receipt p50 ${sig(r.p50)} ms, p99 ${sig(r.p99)} ms\n`);
  }
  const range = (f: (r: (typeof results)[number]) => number) => `${sig(Math.min(...results.map(f)))} to ${sig(Math.max(...results.map(f)))}`;
  process.stdout.write(`\n${events} events, ${runs} runs: deliveries/s ${range((r) => r.perSecond)}; delay p50 ${range((r) => r.p50)} ms; p99 ${range((r) => r.p99)} ms\n`);
} finally {
  await receiver.close();
  await stack.stop();
}
