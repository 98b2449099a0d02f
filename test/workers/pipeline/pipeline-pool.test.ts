import { expect } from 'chai';
import { TrawlError } from '../../../common/errors.js';
import type { PipelineInput } from '../../../workers/pipeline/index.js';
import { createPipelinePool, type PipelinePool } from '../../../workers/pipeline/pipeline-pool.js';

const config = { llm: { baseUrl: '', apiKey: '', model: 'none', timeoutMs: 1_000 } };
const input = (body: string, extra: Partial<PipelineInput> = {}): PipelineInput => ({
  url: 'https://pool.example/',
  body,
  contentType: 'text/html',
  formats: ['markdown'],
  onlyMainContent: true,
  ...extra,
});
/** Markdown that marked parses in time quadratic in its emphasis runs: tens of seconds, far past the budgets below. */
const heavy = () => input('_a'.repeat(80_000), { contentType: 'markdown' });

describe('pipeline/thread pool', function () {
  this.timeout(60_000);
  let pool: PipelinePool;
  before(() => {
    pool = createPipelinePool({ threads: 1, budgetMs: 1_500 });
  });
  after(async () => pool.close());

  it('converts a document on a thread', async () => {
    const out = await pool.run(input('<h1>Hello</h1><p>World</p>'), config);
    expect(out.content).to.equal('# Hello\n\nWorld');
  });

  it('keeps the event loop free while a document converts, then stops it at the budget with EXTRACTION_FAILED', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const err = await pool.run(heavy(), config).then(
      () => null,
      (e: unknown) => e,
    );
    clearInterval(timer);
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('EXTRACTION_FAILED');
    expect((err as TrawlError).details).to.include({ budget_ms: 1_500 });
    // Timers kept firing during the conversion: heartbeats would have gone out.
    expect(ticks).to.be.greaterThan(10);
  });

  it('keeps working after a thread was stopped', async () => {
    const out = await pool.run(input('<p>after</p>', { formats: ['text'] }), config);
    expect(out.content).to.equal('after');
  });

  it('shortens the budget to the task deadline', async () => {
    const err = await pool.run(heavy(), config, { deadlineMs: Date.now() + 200 }).catch((e: TrawlError) => e);
    expect((err as TrawlError).code).to.equal('EXTRACTION_FAILED');
    expect((err as TrawlError).details!['budget_ms']).to.be.at.most(200);
  });

  it('passes public error codes across the thread boundary', async () => {
    const err = await pool.run(input('<p>x</p>', { extractionSchema: { type: 'array' } }), config).catch((e: TrawlError) => e);
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('VALIDATION_ERROR');
  });
});
