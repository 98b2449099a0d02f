import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startJobSignals, type JobSignal } from '../../control-plane/jobs/job-signals.js';
import type { JobRecord } from '../../control-plane/jobs/job-store.js';
import { getControlPlaneServices, type ControlPlaneServices } from './support/database.js';

describe('job signals', function () {
  this.timeout(10_000);
  let services: ControlPlaneServices;
  before(async () => {
    services = await getControlPlaneServices();
  });

  it('reach a waiter of this process at once, with the record', async () => {
    const here = startJobSignals(services.nc, services.names);
    try {
      const jobId = randomUUID();
      const local = here.watch(jobId);
      const other = here.watch(randomUUID());
      const record = { id: jobId, status: 'succeeded' } as JobRecord;
      here.announce(jobId, { kind: 'escalated', tier: '2' });
      here.announce(jobId, { kind: 'ended', record });
      const seen: JobSignal[] = [];
      expect(await local.wait(2_000, (s) => (seen.push(s), s.kind === 'ended'))).to.deep.equal({ kind: 'ended', record });
      expect(seen).to.deep.equal([{ kind: 'escalated', tier: '2' }, { kind: 'ended', record }]);
      // Nothing more arrives: the announcement did not come back through NATS.
      expect(await local.wait(300, () => true)).to.equal(null);
      expect(await other.wait(100, () => true)).to.equal(null);
      local.close();
      other.close();
    } finally {
      here.stop();
    }
  });

  it('reach a waiter of another replica through NATS, without the record', async () => {
    const here = startJobSignals(services.nc, services.names);
    const there = startJobSignals(services.nc, services.names);
    try {
      const jobId = randomUUID();
      const remote = there.watch(jobId);
      here.announce(jobId, { kind: 'escalated', tier: '2' });
      here.announce(jobId, { kind: 'ended', record: { id: jobId } as JobRecord });
      const seen: JobSignal[] = [];
      expect(await remote.wait(2_000, (s) => (seen.push(s), s.kind === 'ended'))).to.deep.equal({ kind: 'ended' });
      expect(seen).to.deep.equal([{ kind: 'escalated', tier: '2' }, { kind: 'ended' }]);
      remote.close();
    } finally {
      here.stop();
      there.stop();
    }
  });

  it('wakes a waiter at its timeout with null', async () => {
    const signals = startJobSignals(services.nc, services.names);
    const started = Date.now();
    expect(await signals.watch(randomUUID()).wait(150, () => true)).to.equal(null);
    expect(Date.now() - started).to.be.within(140, 1_000);
    signals.stop();
  });
});
