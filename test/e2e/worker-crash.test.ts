import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf, pollJob } from '../support/api.js';
import { createTestAccount, getStack, waitForWorkers, type TestStack } from '../support/stack.js';

describe('a worker killed in the middle of a job', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
  });
  after(async () => {
    await site.close();
    if (!stack.running('fetch-t1')) await stack.start('fetch-t1');
  });

  it('leaves a job that another worker completes, charged exactly once', async () => {
    const { key, accountId } = await createTestAccount(stack, 10_000);
    const api = apiClient(stack.baseUrl, key);
    const path = '/slow?ms=3000';
    const hitsBefore = site.hits('/slow');
    const res = await api.post('/api/v1/scrape', { url: `${site.url}${path}`, sync: false, formats: ['markdown'] });
    expect(res.status).to.equal(202);

    // Kill the worker while it holds the request open.
    for (let i = 0; i < 100 && site.hits('/slow') === hitsBefore; i++) await new Promise((r) => setTimeout(r, 50));
    expect(site.hits('/slow')).to.equal(hitsBefore + 1);
    await stack.kill('fetch-t1', 'SIGKILL');
    await stack.start('fetch-t1');
    await waitForWorkers(stack.baseUrl, 30_000);

    const job = await pollJob(api, res.body.poll_url, 50_000);
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    expect(site.hits('/slow')).to.be.at.least(hitsBefore + 2);

    const ledger = await stack.pool.query<{ kind: string; amount_microcents: string }>(
      'SELECT kind, amount_microcents FROM ledger_entries WHERE reference = $1 ORDER BY id',
      [`job:${res.body.job_id}`],
    );
    // The plan reaches the browser, so its price is reserved; the tier-1 success settles the rest back.
    expect(ledger.rows.map((r) => [r.kind, Number(r.amount_microcents)])).to.deep.equal([
      ['reserve', -4_000],
      ['settle', 3_800],
    ]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(9_800);
    const attempts = await stack.pool.query<{ deliveries: number; status: string }>(
      'SELECT deliveries, status FROM job_attempts WHERE job_id = $1',
      [res.body.job_id],
    );
    expect(attempts.rows).to.have.length(1);
    expect(attempts.rows[0]!.status).to.equal('succeeded');
    expect(attempts.rows[0]!.deliveries).to.be.at.least(2);
  });
});

describe('a worker stopped with SIGTERM in the middle of a job', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
  });
  after(async () => {
    await site.close();
    if (!stack.running('fetch-t1')) await stack.start('fetch-t1');
    await waitForWorkers(stack.baseUrl, 30_000);
  });

  it('drains: finishes the task in flight, reports it, then exits cleanly', async () => {
    const { key, accountId } = await createTestAccount(stack, 10_000);
    const api = apiClient(stack.baseUrl, key);
    const hitsBefore = site.hits('/slow');
    const res = await api.post('/api/v1/scrape', { url: `${site.url}/slow?ms=2000`, sync: false, formats: ['markdown'] });
    expect(res.status).to.equal(202);
    for (let i = 0; i < 100 && site.hits('/slow') === hitsBefore; i++) await new Promise((r) => setTimeout(r, 50));
    expect(site.hits('/slow')).to.equal(hitsBefore + 1);

    const exitCode = await stack.kill('fetch-t1', 'SIGTERM');
    expect(exitCode).to.equal(0);

    // No worker is running now: the job can only have been finished by the draining one.
    const job = await pollJob(api, res.body.poll_url, 10_000);
    expect(job.status).to.equal('succeeded');
    expect(site.hits('/slow')).to.equal(hitsBefore + 1);
    const attempts = await stack.pool.query<{ deliveries: number }>('SELECT deliveries FROM job_attempts WHERE job_id = $1', [res.body.job_id]);
    expect(attempts.rows.map((r) => r.deliveries)).to.deep.equal([1]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(9_800);
  });
});

describe('an extract worker killed in the middle of a job', function () {
  this.timeout(120_000);
  let stack: TestStack;
  before(async () => {
    stack = await getStack();
  });
  after(async () => {
    stack.llm.setBehaviour({ kind: 'answer' });
    if (!stack.running('extract')) await stack.start('extract');
    await waitForWorkers(stack.baseUrl, 30_000, 'extract');
  });

  it('answers the waiting caller once another worker has run it, charged exactly once', async () => {
    const { key, accountId } = await createTestAccount(stack, 10_000);
    const api = apiClient(stack.baseUrl, key);
    stack.llm.setBehaviour({ kind: 'slow', delayMs: 10_000 });
    stack.llm.requests.length = 0;
    const pending = api.post('/api/v1/extract', {
      content: '<h1>Harbour Turbine</h1><p>Colour: green</p>',
      extraction_prompt: 'Extract the colour.',
      extraction_schema: { type: 'object', properties: { colour: { type: 'string' } } },
    });

    // Kill the worker while it waits on the LLM, then bring up a fresh one with a fast LLM.
    for (let i = 0; i < 600 && stack.llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stack.llm.requests).to.have.length(1);
    await stack.kill('extract', 'SIGKILL');
    stack.llm.setBehaviour({ kind: 'answer' });
    await stack.start('extract');

    const res = await pending;
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.extraction_method).to.equal('llm');
    expect(res.body.formats.json).to.include({ colour: 'green' });
    expect(stack.llm.requests.length).to.be.at.least(2);

    const ledger = await stack.pool.query<{ kind: string; amount_microcents: string }>(
      'SELECT kind, amount_microcents FROM ledger_entries WHERE reference = $1 ORDER BY id',
      [`job:${res.body.extract_id}`],
    );
    expect(ledger.rows.map((r) => [r.kind, Number(r.amount_microcents)])).to.deep.equal([
      ['reserve', -2_500],
      ['settle', 0],
    ]);
    expect(await balanceOf(stack.pool, accountId)).to.equal(7_500);
    const attempts = await stack.pool.query<{ deliveries: number }>('SELECT deliveries FROM job_attempts WHERE job_id = $1', [res.body.extract_id]);
    expect(attempts.rows).to.have.length(1);
    expect(attempts.rows[0]!.deliveries).to.be.at.least(2);
  });
});
