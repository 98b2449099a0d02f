import { expect } from 'chai';
import { withTransaction } from '../../../control-plane/billing/ledger.js';
import { renderEventBody } from '../../../control-plane/events/event-body.js';
import { create, fromJson, toBinary } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { RELAY_PASS_INTERVAL_MS, relayOnce, startOutboxRelay, storedResultLoader } from '../../../control-plane/events/outbox-relay.js';
import { ScrapeResultSchema } from '../../../proto/gen/trawl/v1/scrape_pb.js';
import { recordEvent } from '../../../control-plane/events/record-event.js';
import { settleJob } from '../../../control-plane/jobs/lifecycle.js';
import { createLogger } from '../../../common/logger.js';
import { natsNames } from '../../../common/nats-names.js';
import { WEBHOOK_MAX_BODY_BYTES } from '../../../common/limits.js';
import { eventually } from '../../support/webhooks.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

describe('the event outbox and its relay', function () {
  this.timeout(60_000);
  let services: ControlPlaneServices;
  const log = createLogger('outbox-test', 'fatal');
  const noResult = async () => undefined;
  before(async () => {
    services = await getControlPlaneServices();
  });

  const eventsOf = async (accountId: string) =>
    (await services.pool.query('SELECT id, type, payload, published_at, body FROM event_outbox WHERE account_id = $1 ORDER BY created_at', [accountId])).rows;

  it('records an event only when the transaction that records it commits', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    await withTransaction(services.pool, async (client) => {
      await recordEvent(client, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: 'm1' } });
      throw new Error('the change fails');
    }).catch(() => undefined);
    expect(await eventsOf(caller.accountId)).to.have.length(0);
    await withTransaction(services.pool, (client) => recordEvent(client, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: 'm2' } }));
    expect((await eventsOf(caller.accountId)).map((e) => e.payload.monitor_id)).to.deep.equal(['m2']);
  });

  it('records job.completed in the statement that settles the job, with the SPEC 6.3 fields', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    const admitted = await admitTestJob(services, caller);
    await settleJob(services.pool, admitted.job.id, {
      attemptId: admitted.attempt.id, succeeded: true, result: 'success', errorCode: null, errorMessage: null, escalate: false,
      statusCode: 200, fetchMs: 5, durationMs: 7, bytes: 10, workerId: 'w', startedAt: null, deliveries: 1,
    }, { resultKey: 'none', statusCode: 200 });
    const [event] = await eventsOf(caller.accountId);
    expect(event.type).to.equal('job.completed');
    expect(event.payload).to.include({ job_id: admitted.job.id, batch_id: null, status: 'succeeded' });
    expect(event.payload.billing).to.deep.equal({ total_credits: 1, tier_used: '1', escalations: [{ tier: '1', result: 'success', credits: 1 }] });
    expect(event.payload.timing).to.have.all.keys('queued_at', 'started_at', 'completed_at', 'duration_ms');
    // Settling again changes nothing, and records nothing.
    await settleJob(services.pool, admitted.job.id, {
      attemptId: admitted.attempt.id, succeeded: true, result: 'success', errorCode: null, errorMessage: null, escalate: false,
      statusCode: 200, fetchMs: 5, durationMs: 7, bytes: 10, workerId: 'w', startedAt: null, deliveries: 1,
    }, { resultKey: 'none', statusCode: 200 });
    expect(await eventsOf(caller.accountId)).to.have.length(1);
  });

  it('leaves events unpublished when publishing fails, and publishes each once with its id as message id', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    await recordEvent(services.pool, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: 'x' }, requestWebhook: { url: 'https://example.com/hook' } });
    // NATS answers no stream for this prefix: the publish fails for real, and the transaction rolls back.
    const failing = { ...services, names: natsNames('no_such_stack_'), log };
    await relayOnce(failing, noResult).catch(() => undefined);
    const [unpublished] = await eventsOf(caller.accountId);
    expect(unpublished.published_at).to.equal(null);
    expect((await services.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1', [unpublished.id])).rows[0].n).to.equal(0);

    const relay = { ...services, log };
    while ((await relayOnce(relay, noResult)).events > 0);
    const [published] = await eventsOf(caller.accountId);
    expect(published.published_at).to.be.an.instanceOf(Date);
    expect(JSON.parse(published.body)).to.deep.include({ event: 'monitor.checked', data: { monitor_id: 'x' } });
    const deliveries = await services.pool.query('SELECT url, status FROM webhook_deliveries WHERE event_id = $1', [published.id]);
    expect(deliveries.rows).to.deep.equal([{ url: 'https://example.com/hook', status: 'pending' }]);
    // A relay that died after publishing and before its commit publishes again: JetStream drops it by the event id.
    const again = await services.js.publish(services.names.eventSubject('monitor.checked'), published.body, { msgID: published.id });
    expect(again.duplicate).to.equal(true);
    expect((await relayOnce(relay, noResult)).events).to.equal(0);
  });

  it("renders job.completed with its job's stored result, found by the key the relay reads with the events", async () => {
    const caller = await createTestCaller(services, 1_000_000);
    const admitted = await admitTestJob(services, caller);
    const resultKey = `outbox-test:${admitted.job.id}`;
    const stored = create(ScrapeResultSchema, { url: 'https://example.com/tides', title: 'Tides', content: fromJson(ValueSchema, '# Tides\n\nHigh water at 18:40.') });
    await services.redis.set(resultKey, Buffer.from(toBinary(ScrapeResultSchema, stored)), 'EX', 600);
    await settleJob(services.pool, admitted.job.id, {
      attemptId: admitted.attempt.id, succeeded: true, result: 'success', errorCode: null, errorMessage: null, escalate: false,
      statusCode: 200, fetchMs: 5, durationMs: 7, bytes: 10, workerId: 'w', startedAt: null, deliveries: 1,
    }, { resultKey, statusCode: 200 });
    // An event naming no job, and one naming a job id that is not a UUID: published without a result, never failing the batch.
    await recordEvent(services.pool, { accountId: caller.accountId, type: 'job.completed', payload: { job_id: 'not-a-uuid', status: 'succeeded' } });
    await recordEvent(services.pool, { accountId: caller.accountId, type: 'job.completed', payload: { status: 'succeeded' } });
    const relay = { ...services, log };
    while ((await relayOnce(relay, storedResultLoader(services.redis))).events > 0);
    const bodies = (await eventsOf(caller.accountId)).map((e) => JSON.parse(e.body));
    expect(bodies).to.have.length(3);
    expect(bodies[0].data.job_id).to.equal(admitted.job.id);
    expect(bodies[0].data.result).to.include({ status_code: 200, content: '# Tides\n\nHigh water at 18:40.', title: 'Tides' });
    expect(bodies[1].data).to.deep.equal({ job_id: 'not-a-uuid', status: 'succeeded' });
    expect(bodies[2].data).to.deep.equal({ status: 'succeeded' });
  });

  it('a running relay publishes every event: a commit of more than two batches, and commits close together', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    let deliveriesCreated = 0;
    const relay = await startOutboxRelay({ ...services, log, deliveriesCreated: () => void deliveriesCreated++ });
    try {
      await withTransaction(services.pool, async (client) => {
        for (let i = 0; i < 1_100; i++) await recordEvent(client, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: `bulk-${i}` } });
      });
      // Separate commits a few milliseconds apart, the last with a webhook to deliver to.
      for (let i = 0; i < 5; i++) await recordEvent(services.pool, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: `single-${i}` } });
      await recordEvent(services.pool, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: 'hooked' }, requestWebhook: { url: 'https://example.com/hook' } });
      const published = async () => {
        const { rows } = await services.pool.query<{ published: number; pending: number }>(
          'SELECT count(*) FILTER (WHERE published_at IS NOT NULL)::int AS published, count(*) FILTER (WHERE published_at IS NULL)::int AS pending FROM event_outbox WHERE account_id = $1',
          [caller.accountId],
        );
        return rows[0]!.pending === 0 ? rows[0]!.published : undefined;
      };
      expect(await eventually(published, 20_000, 'every event published')).to.equal(1_106);
      await eventually(async () => (deliveriesCreated > 0 ? true : undefined), 5_000, 'the dispatcher woken for the new delivery');
    } finally {
      await relay.stop();
    }
  });

  it('under a steady stream of commits, takes the events of several in each pass, a pass at most every interval', async () => {
    const caller = await createTestCaller(services, 1_000_000);
    const relay = await startOutboxRelay({ ...services, log, deliveriesCreated: () => undefined });
    const commits = 60;
    const started = Date.now();
    try {
      // One commit (and one notification) every 10 ms or so, as jobs ending one after another record their events.
      for (let i = 0; i < commits; i++) {
        await recordEvent(services.pool, { accountId: caller.accountId, type: 'monitor.checked', payload: { monitor_id: `stream-${i}` } });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const passes = async () => {
        const { rows } = await services.pool.query<{ pending: number; passes: number }>(
          `SELECT count(*) FILTER (WHERE published_at IS NULL)::int AS pending, count(DISTINCT published_at)::int AS passes
           FROM event_outbox WHERE account_id = $1`,
          [caller.accountId],
        );
        return rows[0]!.pending === 0 ? rows[0]!.passes : undefined;
      };
      // Each pass marks its events in one transaction, so they share its published_at.
      const taken = await eventually(passes, 10_000, 'every event published');
      const elapsed = Date.now() - started;
      expect(taken).to.be.at.most(Math.ceil(elapsed / RELAY_PASS_INTERVAL_MS) + 1);
      expect(taken).to.be.lessThan(commits / 3);
    } finally {
      await relay.stop();
    }
  });

  it('keeps a body under 1 MB: job.completed loses its content first, other events their data', async () => {
    const huge = 'x'.repeat(WEBHOOK_MAX_BODY_BYTES);
    const jobBody = await renderEventBody(
      { id: 'e', account_id: 'a', type: 'job.completed', created_at: new Date(0), payload: { job_id: 'j', result: { status_code: 200, content: huge, title: 't', metadata: null } } },
      noResult,
    );
    expect(Buffer.byteLength(jobBody)).to.be.at.most(WEBHOOK_MAX_BODY_BYTES);
    expect(JSON.parse(jobBody).data.result).to.include({ content: null, content_omitted: true, title: 't', status_code: 200 });
    const other = await renderEventBody({ id: 'e', account_id: 'a', type: 'crawl.completed', created_at: new Date(0), payload: { crawl_id: 'c', big: huge } }, noResult);
    expect(JSON.parse(other).data).to.deep.equal({ crawl_id: 'c', data_omitted: true });
  });
});
