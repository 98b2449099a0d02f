import { expect } from 'chai';
import { createClickHouse } from '../../common/connections.js';
import { waitForHttp } from '../../deploy/local/processes.js';
import { getStack, type TestStack } from '../support/stack.js';

describe('gateway shutdown', function () {
  this.timeout(90_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });
  after(async () => {
    if (!stack.running('gateway')) await stack.start('gateway');
    await waitForHttp(`${stack.baseUrl}/api/v1/health/ready`, 30_000);
  });

  it('publishes the request logs it has gathered before it exits on SIGTERM', async () => {
    const prefix = `shutdown${Date.now()}`;
    const ids = Array.from({ length: 20 }, (_, i) => `${prefix}_${i}`);
    const answers = await Promise.all(ids.map((id) => fetch(`${stack.baseUrl}/api/v1/status`, { headers: { 'X-Request-Id': id } })));
    expect(answers.every((r) => r.status === 200)).to.equal(true);
    // Well inside the batching window: the records are still in the gateway's memory.
    expect(await stack.kill('gateway', 'SIGTERM')).to.equal(0);

    const ch = createClickHouse(stack.config);
    try {
      let found = 0;
      for (let i = 0; i < 60 && found < ids.length; i++) {
        const result = await ch.query({ query: `SELECT count() AS n FROM request_logs WHERE request_id LIKE '${prefix}_%'`, format: 'JSONEachRow' });
        found = Number(((await result.json()) as Array<{ n: string }>)[0]!.n);
        if (found < ids.length) await new Promise((r) => setTimeout(r, 250));
      }
      expect(found).to.equal(ids.length);
    } finally {
      await ch.close();
    }
  });
});
