import { expect } from 'chai';
import { superviseRoles } from '../../deploy/local/supervisor.js';
import { closedPort } from '../support/closed-port.js';

describe('npm start supervisor', function () {
  this.timeout(60_000);

  it('restarts a process that exits, with a growing backoff, until stopped', async () => {
    const lines: string[] = [];
    const port = await closedPort();
    const supervisor = superviseRoles(
      ['analytics'],
      { ...process.env, TRAWL_RUNTIME: 'tsx', NATS_URL: `nats://127.0.0.1:${port}`, LOG_LEVEL: 'fatal' },
      (role, line) => lines.push(`${role} | ${line}`),
      { initialBackoffMs: 100, maxBackoffMs: 400, healthyAfterMs: 60_000 },
    );
    try {
      const until = Date.now() + 45_000;
      while (supervisor.restarts('analytics') < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(supervisor.restarts('analytics')).to.be.at.least(3);
      const notes = lines.filter((l) => l.includes('restarting in'));
      expect(notes[0]).to.match(/analytics \| exited with code 1; restarting in 0\.1 s/);
      expect(notes[1]).to.contain('restarting in 0.2 s');
      expect(notes[2]).to.contain('restarting in 0.4 s');
    } finally {
      await supervisor.stopAll();
    }
    const after = supervisor.restarts('analytics');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(supervisor.restarts('analytics'), 'nothing restarts after stopAll').to.equal(after);
  });
});
