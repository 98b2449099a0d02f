import { expect } from 'chai';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { sweepOnce } from '../../control-plane/scheduler/sweeper.js';
import { admitJob } from '../../control-plane/scrape/admission.js';
import { connectNats } from '../../common/connections.js';
import { createLogger } from '../../common/logger.js';
import { balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('the sweeper', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let nc: NatsConnection;

  before(async () => {
    stack = await getStack();
    nc = await connectNats(stack.config, 'sweeper-test');
  });
  after(async () => nc.close());

  const admit = async (accountId: string, keyId: string, request: Record<string, unknown>, deadline: Date) =>
    admitJob(
      stack.pool,
      { accountId, keyId, scopes: [] },
      {
        kind: 'scrape',
        url: 'https://example.com/',
        mode: 'auto',
        formats: ['markdown'],
        sync: false,
        request: { url: 'https://example.com/', mode: 'auto', formats: ['markdown'], timeout: 30, ...request },
        tierPlan: ['1'],
        pool: 'fetch-t1',
        reserveMicrocents: 200,
        attemptPriceMicrocents: 200,
        deadline,
        estimatedTier: '1',
      },
      'req_sweeper_test',
    );

  it('keeps sweeping past an attempt that cannot be published, and still fails and refunds overdue jobs', async () => {
    const { accountId } = await createTestAccount(stack, 10_000);
    const keyId = (await stack.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1', [accountId])).rows[0]!.id;

    // A task over the NATS message limit (a body written before bodies were parked in Redis), never published.
    const poisoned = await admit(accountId, keyId, { method: 'POST', body: 'x'.repeat(1_200_000) }, new Date(Date.now() + 300_000));
    // A job whose deadline has passed.
    const overdue = await admit(accountId, keyId, {}, new Date(Date.now() - 1_000));
    await stack.pool.query(`UPDATE job_attempts SET created_at = now() - interval '1 minute' WHERE job_id = $1`, [poisoned.job.id]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(9_600);

    const deps = { pool: stack.pool, js: jetstream(nc), nc, names: stack.names, log: createLogger('sweeper-test', 'fatal') };
    await sweepOnce(deps, { unpublishedAfterMs: 1_000 });

    const jobs = await stack.pool.query<{ id: string; status: string; error_code: string | null }>(
      'SELECT id, status, error_code FROM jobs WHERE id = ANY($1)',
      [[poisoned.job.id, overdue.job.id]],
    );
    const byId = new Map(jobs.rows.map((r) => [r.id, r]));
    expect(byId.get(overdue.job.id)).to.include({ status: 'failed', error_code: 'TIMEOUT' });
    expect(byId.get(poisoned.job.id)!.status).to.equal('pending');
    // The overdue job's reservation came back; the poisoned one's is held until its own deadline.
    expect(await balanceOf(stack.pool, accountId)).to.equal(9_800);
  });
});
