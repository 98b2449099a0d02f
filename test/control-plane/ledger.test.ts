import { expect } from 'chai';
import { createAccount } from '../../control-plane/accounts/api-keys.js';
import { applyLedgerEntry, withTransaction } from '../../control-plane/billing/ledger.js';
import { balanceOf } from '../support/api.js';
import { getControlPlaneServices, type ControlPlaneServices } from './support/database.js';

describe('the money ledger (Postgres)', function () {
  this.timeout(60_000);
  let stack: ControlPlaneServices;
  before(async () => {
    stack = await getControlPlaneServices();
  });

  it('applies an entry once however often it is retried', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'ledger', initialMicrocents: 1_000 });
    const entry = { accountId, kind: 'refund' as const, amountMicrocents: 300, reference: `test:${accountId}` };
    const first = await withTransaction(stack.pool, (c) => applyLedgerEntry(c, entry));
    const second = await withTransaction(stack.pool, (c) => applyLedgerEntry(c, entry));
    expect(first).to.deep.equal({ applied: true, balanceMicrocents: 1_300 });
    expect(second).to.deep.equal({ applied: false, reason: 'duplicate', balanceMicrocents: 1_300 });
    expect(await balanceOf(stack.pool, accountId)).to.equal(1_300);
  });

  it('never lets concurrent reservations overdraw the balance', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'ledger', initialMicrocents: 1_000 });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        withTransaction(stack.pool, (c) =>
          applyLedgerEntry(c, { accountId, kind: 'reserve', amountMicrocents: -300, reference: `race:${accountId}:${i}` }),
        ),
      ),
    );
    expect(results.filter((r) => r.applied)).to.have.length(3);
    expect(await balanceOf(stack.pool, accountId)).to.equal(100);
    const sum = await stack.pool.query<{ total: string }>('SELECT sum(amount_microcents) AS total FROM ledger_entries WHERE account_id = $1', [accountId]);
    expect(Number(sum.rows[0]!.total)).to.equal(100);
  });

  it('applies an entry retried concurrently exactly once, answering the others as duplicates', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'ledger', initialMicrocents: 1_000 });
    const entry = { accountId, kind: 'settle' as const, amountMicrocents: 250, reference: `twin:${accountId}` };
    const results = await Promise.all(Array.from({ length: 8 }, () => withTransaction(stack.pool, (c) => applyLedgerEntry(c, entry))));
    expect(results.filter((r) => r.applied)).to.have.length(1);
    expect(results.filter((r) => !r.applied).map((r) => (r.applied ? '' : r.reason))).to.deep.equal(Array(7).fill('duplicate'));
    expect(await balanceOf(stack.pool, accountId)).to.equal(1_250);
  });

  it('reports a repeated reservation as a duplicate even when the balance could not cover it again', async () => {
    const { accountId } = await createAccount(stack.pool, { name: 'ledger', initialMicrocents: 1_000 });
    const entry = { accountId, kind: 'reserve' as const, amountMicrocents: -800, reference: `again:${accountId}` };
    expect(await withTransaction(stack.pool, (c) => applyLedgerEntry(c, entry))).to.deep.equal({ applied: true, balanceMicrocents: 200 });
    expect(await withTransaction(stack.pool, (c) => applyLedgerEntry(c, entry))).to.deep.equal({ applied: false, reason: 'duplicate', balanceMicrocents: 200 });
  });

  it('refuses an entry for an account that does not exist', async () => {
    const missing = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    const err = await withTransaction(stack.pool, (c) => applyLedgerEntry(c, { accountId: missing, kind: 'deposit', amountMicrocents: 1, reference: 'nobody' })).catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect(await stack.pool.query('SELECT 1 FROM ledger_entries WHERE reference = $1', ['nobody'])).to.have.property('rowCount', 0);
  });
});
