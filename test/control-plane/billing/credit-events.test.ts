import { expect } from 'chai';
import { createAccount } from '../../../control-plane/accounts/api-keys.js';
import { writeBillingSettings } from '../../../control-plane/billing/billing-settings.js';
import { CREDIT_EVENTS, EXHAUSTED_BELOW_MICROCENTS } from '../../../control-plane/billing/credit-events.js';
import { applyLedgerEntry, withTransaction, type LedgerKind } from '../../../control-plane/billing/ledger.js';
import { balanceOf } from '../../support/api.js';
import { admitTestJob, createTestCaller, getControlPlaneServices, type ControlPlaneServices } from '../support/database.js';

/** The threshold the migration starts with: 100 credits. */
const LOW = 20_000;

describe('credits events recorded with the ledger entry that crosses a threshold', function () {
  this.timeout(60_000);
  let stack: ControlPlaneServices;
  before(async () => {
    stack = await getControlPlaneServices();
    await writeBillingSettings(stack.pool, { creditsLowThresholdMicrocents: LOW });
  });

  const events = async (accountId: string) =>
    (
      await stack.pool.query<{ type: string; payload: Record<string, unknown>; published_at: Date | null }>(
        'SELECT type, payload, published_at FROM event_outbox WHERE account_id = $1 ORDER BY created_at, type',
        [accountId],
      )
    ).rows;

  let n = 0;
  const entry = (accountId: string, amountMicrocents: number, kind: LedgerKind = 'adjustment') =>
    applyLedgerEntry(stack.pool, { accountId, kind, amountMicrocents, reference: `events-test:${accountId}:${n++}` });

  it('records exactly one credits.low when the balance drops below the threshold from above it', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'events', initialMicrocents: LOW + 1_000 });
    expect(await events(accountId)).to.deep.equal([]);
    await entry(accountId, -1_000); // exactly at the threshold: not below it
    expect(await events(accountId)).to.deep.equal([]);
    await entry(accountId, -200);
    await entry(accountId, -200); // already below: no new crossing
    const recorded = await events(accountId);
    expect(recorded).to.have.length(1);
    expect(recorded[0]!.type).to.equal(CREDIT_EVENTS.low);
    expect(recorded[0]!.published_at).to.equal(null);
    expect(recorded[0]!.payload).to.include({ account_id: accountId, balance_microcents: LOW - 200, balance_credits: (LOW - 200) / 200, threshold_credits: LOW / 200 });
  });

  it('records credits.exhausted when the balance falls below the cheapest request, and again after a deposit lifts it', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'events', initialMicrocents: 1_000 });
    await entry(accountId, -(1_000 - EXHAUSTED_BELOW_MICROCENTS)); // at the cheapest price: still payable
    expect(await events(accountId)).to.deep.equal([]);
    await entry(accountId, -EXHAUSTED_BELOW_MICROCENTS);
    expect((await events(accountId)).map((e) => e.type)).to.deep.equal([CREDIT_EVENTS.exhausted]);
    await entry(accountId, 5_000, 'deposit');
    await entry(accountId, -5_000);
    expect((await events(accountId)).map((e) => e.type)).to.deep.equal([CREDIT_EVENTS.exhausted, CREDIT_EVENTS.exhausted]);
  });

  it('records both events, once each, when one entry crosses both thresholds', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'events', initialMicrocents: LOW * 2 });
    await entry(accountId, -LOW * 2);
    expect((await events(accountId)).map((e) => e.type).sort()).to.deep.equal([CREDIT_EVENTS.exhausted, CREDIT_EVENTS.low].sort());
    expect(await balanceOf(stack.pool, accountId)).to.equal(0);
  });

  it('records nothing when the transaction holding the crossing entry rolls back', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'events', initialMicrocents: LOW + 500 });
    const failed = await withTransaction(stack.pool, async (client) => {
      await applyLedgerEntry(client, { accountId, kind: 'adjustment', amountMicrocents: -LOW, reference: `rollback:${accountId}` });
      throw new Error('later step failed');
    }).catch((err: Error) => err);
    expect(failed).to.be.an('error');
    expect(await events(accountId)).to.deep.equal([]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(LOW + 500);
  });

  it('records nothing for a retried entry or one the balance cannot cover', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'events', initialMicrocents: LOW + 100 });
    const crossing = { accountId, kind: 'adjustment' as const, amountMicrocents: -200, reference: `retry:${accountId}` };
    await applyLedgerEntry(stack.pool, crossing);
    const retried = await applyLedgerEntry(stack.pool, crossing);
    expect(retried).to.include({ applied: false, reason: 'duplicate' });
    const refused = await entry(accountId, -1_000_000);
    expect(refused).to.include({ applied: false, reason: 'insufficient' });
    expect((await events(accountId)).map((e) => e.type)).to.deep.equal([CREDIT_EVENTS.low]);
  });

  it('records the event in the statement that reserves a job, with the job as reference; a refused reservation records none', async () => {
    const caller = await createTestCaller(stack, LOW + 100);
    const admitted = await admitTestJob(stack, caller, { reserveMicrocents: 400 });
    const recorded = await events(caller.accountId);
    expect(recorded.map((e) => e.type)).to.deep.equal([CREDIT_EVENTS.low]);
    expect(recorded[0]!.payload['reference']).to.equal(`job:${admitted.job.id}`);
    const refused = await admitTestJob(stack, caller, { reserveMicrocents: 10 * LOW }).catch((err: { code?: string }) => err);
    expect(refused).to.include({ code: 'INSUFFICIENT_CREDITS' });
    expect(await events(caller.accountId)).to.have.length(1);
  });

  it('follows the configured threshold', async () => {
    try {
      await writeBillingSettings(stack.pool, { creditsLowThresholdMicrocents: 50_000 });
      const { accountId } = await createAccount(stack.pool, { name: 'events', initialMicrocents: 50_000 });
      await entry(accountId, -200);
      expect((await events(accountId)).map((e) => e.payload['threshold_credits'])).to.deep.equal([250]);
    } finally {
      await writeBillingSettings(stack.pool, { creditsLowThresholdMicrocents: LOW });
    }
  });
});
