import { fromBinary, toJson } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { TrawlError } from '../../../common/errors.js';
import { ScrapeResultSchema } from '../../../proto/gen/trawl/v1/scrape_pb.js';
import { createContentPipeline, type ContentPipeline } from '../../../workers/pipeline/content-pipeline.js';
import type { ThreadTask } from '../../../workers/pipeline/pipeline-thread.js';
import { startOpenAiTestServer, type OpenAiTestServer } from '../../fixtures/openai-server.js';

const BUDGET_MS = 1_500;

function task(body: string | Buffer, input: Partial<ThreadTask['input']> = {}, source: Partial<ThreadTask['source']> = {}): ThreadTask {
  return {
    bytes: typeof body === 'string' ? Buffer.from(body) : body,
    charset: 'utf-8',
    input: { url: 'https://pool.example/', contentType: 'text/html', formats: ['markdown'], onlyMainContent: true, ...input },
    source: {
      url: 'https://pool.example/',
      finalUrl: 'https://pool.example/',
      statusCode: 200,
      headers: {},
      sizeBytes: 10,
      responseTimeMs: 5,
      includeRawHtml: false,
      contentAsFormats: false,
      ...source,
    },
  };
}
/** Markdown that marked parses in time quadratic in its emphasis runs: tens of seconds, far past the budgets below. */
const heavy = () => task('_a'.repeat(80_000), { contentType: 'markdown' });
const decode = (bytes: Uint8Array) => fromBinary(ScrapeResultSchema, bytes);

describe('pipeline/content pipeline on threads', function () {
  this.timeout(60_000);
  let llm: OpenAiTestServer;
  let pipeline: ContentPipeline;
  before(async () => {
    llm = await startOpenAiTestServer();
    pipeline = createContentPipeline({
      threads: 1,
      budgetMs: BUDGET_MS,
      llm: { baseUrl: llm.baseUrl, apiKey: llm.apiKey, model: llm.model, timeoutMs: 1_000 },
    });
  });
  after(async () => {
    await pipeline.close();
    await llm.close();
  });
  afterEach(() => llm.setBehaviour({ kind: 'answer' }));

  it('converts a document on a thread into the serialized result, moving its bytes there', async () => {
    const bytes = Buffer.from(new TextEncoder().encode('<h1>Hello</h1><p>World</p>').buffer);
    const result = decode(await pipeline.process(task(bytes), { deadlineMs: Date.now() + 10_000 }));
    expect(toJson(ScrapeResultSchema, result)).to.include({ url: 'https://pool.example/', statusCode: 200, extractionMethod: 'algorithmic' });
    expect(result.content).to.deep.include({ kind: { case: 'stringValue', value: '# Hello\n\nWorld' } });
    // The buffer went to the thread: nothing is left of it here.
    expect(bytes.buffer.byteLength).to.equal(0);
  });

  it('decodes the document once, in the charset it was fetched in, and can carry it as raw_html', async () => {
    const latin1 = Buffer.from('<p>Caf\xe9 cr\xe8me</p>', 'latin1');
    const result = decode(await pipeline.process({ ...task(latin1, { formats: ['text'] }, { includeRawHtml: true }), charset: 'windows-1252' }, { deadlineMs: Date.now() + 10_000 }));
    expect(result.rawHtml).to.equal('<p>Café crème</p>');
    expect(result.content?.kind).to.deep.equal({ case: 'stringValue', value: 'Café crème' });
  });

  it('answers an HTML page\'s links with its result when asked, read on the thread in the same parse', async () => {
    const page = '<title>Links</title><nav><a href="/a">A</a></nav><div hidden><a href="b#top">B</a></div><p>Text of the page.</p>';
    const asked = await pipeline.processPage(task(page, { links: true, url: 'https://pool.example/dir/' }), { deadlineMs: Date.now() + 10_000 });
    expect(asked.links?.links.map((l) => l.url)).to.deep.equal(['https://pool.example/a', 'https://pool.example/dir/b']);
    expect(asked.links?.title).to.equal('Links');
    expect(decode(asked.result).content?.kind).to.deep.equal({ case: 'stringValue', value: 'Text of the page.' });
    expect((await pipeline.processPage(task(page), { deadlineMs: Date.now() + 10_000 })).links).to.equal(null);
    expect((await pipeline.processPage(task('# Not a page [x](/x)', { links: true, contentType: 'markdown' }), { deadlineMs: Date.now() + 10_000 })).links).to.equal(null);
  });

  it('leaves a document whose bytes share a larger buffer usable by their owner', async () => {
    const shared = Buffer.from('xxxx<p>inside</p>yyyy');
    const view = shared.subarray(4, shared.length - 4);
    const result = decode(await pipeline.process(task(view, { formats: ['text'] }), { deadlineMs: Date.now() + 10_000 }));
    expect(result.content?.kind).to.deep.equal({ case: 'stringValue', value: 'inside' });
    expect(shared.toString()).to.equal('xxxx<p>inside</p>yyyy');
  });

  it('keeps the event loop free while a document converts, then stops it at the budget with EXTRACTION_FAILED', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const err = await pipeline.process(heavy(), { deadlineMs: Date.now() + 60_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    clearInterval(timer);
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('EXTRACTION_FAILED');
    expect((err as TrawlError).details).to.include({ budget_ms: BUDGET_MS });
    // Timers kept firing during the conversion: heartbeats would have gone out.
    expect(ticks).to.be.greaterThan(10);
  });

  it('keeps working after a thread was stopped', async () => {
    const result = decode(await pipeline.process(task('<p>after</p>', { formats: ['text'] }), { deadlineMs: Date.now() + 10_000 }));
    expect(result.content?.kind).to.deep.equal({ case: 'stringValue', value: 'after' });
  });

  it('starts a queued document\'s budget when a thread begins on it, not when it was queued', async () => {
    // One thread: the light page waits behind the heavy one for a whole budget (and the thread's replacement).
    const queuedAt = Date.now();
    const [heavyOutcome, light] = await Promise.allSettled([
      pipeline.process(heavy(), { deadlineMs: Date.now() + 60_000 }),
      pipeline.process(task('<p>queued</p>', { formats: ['text'] }), { deadlineMs: Date.now() + 60_000 }),
    ]);
    expect(heavyOutcome.status).to.equal('rejected');
    expect(((heavyOutcome as PromiseRejectedResult).reason as TrawlError).code).to.equal('EXTRACTION_FAILED');
    expect(Date.now() - queuedAt).to.be.at.least(BUDGET_MS);
    expect(light.status).to.equal('fulfilled');
    expect(decode((light as PromiseFulfilledResult<Uint8Array>).value).content?.kind).to.deep.equal({ case: 'stringValue', value: 'queued' });
  });

  it('stops a document that began late at its own budget', async () => {
    // The heavy page waits a budget behind the first; it is then stopped a budget after it began, not at once.
    const [, late] = await Promise.allSettled([
      pipeline.process(heavy(), { deadlineMs: Date.now() + 60_000 }),
      (async () => {
        const queuedAt = Date.now();
        const err = await pipeline.process(heavy(), { deadlineMs: Date.now() + 60_000 }).catch((e: TrawlError) => e);
        return { err, tookMs: Date.now() - queuedAt };
      })(),
    ]);
    const { err, tookMs } = (late as PromiseFulfilledResult<{ err: unknown; tookMs: number }>).value;
    expect((err as TrawlError).code).to.equal('EXTRACTION_FAILED');
    expect((err as TrawlError).details).to.include({ budget_ms: BUDGET_MS });
    expect(tookMs).to.be.at.least(2 * BUDGET_MS);
  });

  it('shortens the budget to the task deadline', async () => {
    const err = await pipeline.process(heavy(), { deadlineMs: Date.now() + 200 }).catch((e: TrawlError) => e);
    expect((err as TrawlError).code).to.equal('EXTRACTION_FAILED');
    expect((err as TrawlError).details!['budget_ms']).to.be.at.most(200);
  });

  it('passes public error codes across the thread boundary', async () => {
    const err = await pipeline.process(task('<p>x</p>', { extractionSchema: { type: 'array' } }), { deadlineMs: Date.now() + 10_000 }).catch((e: TrawlError) => e);
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('VALIDATION_ERROR');
  });

  describe('an extraction_prompt', () => {
    const prompt = (extra: Partial<ThreadTask['input']> = {}) =>
      task('<h1>Harbour Turbine</h1><p>Colour: green</p>', {
        formats: ['markdown', 'json'],
        extractionPrompt: 'Extract the colour.',
        extractionSchema: { type: 'object', properties: { colour: { type: 'string' } } },
        ...extra,
      });

    it('is asked after the thread, with the converted Markdown, and answers in filtered content with the model', async () => {
      llm.requests.length = 0;
      const result = toJson(ScrapeResultSchema, decode(await pipeline.process(prompt(), { deadlineMs: Date.now() + 10_000 }))) as Record<string, unknown>;
      expect(result['extractionMethod']).to.equal('llm');
      expect(result['modelUsed']).to.equal(llm.model);
      expect(result['filteredContent']).to.include({ colour: 'green' });
      expect(llm.requests).to.have.length(1);
      expect(JSON.stringify(llm.requests[0]!.body)).to.contain('# Harbour Turbine');
    });

    it('answers in the json format on the extract endpoint', async () => {
      const out = decode(await pipeline.process(prompt({ jsonIsFiltered: true }), { deadlineMs: Date.now() + 10_000 }));
      const content = toJson(ScrapeResultSchema, out) as { content: { json: unknown } };
      expect(content.content.json).to.include({ colour: 'green' });
    });

    it('waits for the LLM on its own timeout, not the processing budget', async () => {
      const slow = createContentPipeline({ threads: 1, budgetMs: 2_000, llm: { baseUrl: llm.baseUrl, apiKey: llm.apiKey, model: llm.model, timeoutMs: 8_000 } });
      try {
        await slow.process(task('<p>warm</p>'), { deadlineMs: Date.now() + 10_000 });
        llm.setBehaviour({ kind: 'slow', delayMs: 3_000 });
        const out = toJson(ScrapeResultSchema, decode(await slow.process(prompt(), { deadlineMs: Date.now() + 10_000 }))) as Record<string, unknown>;
        expect(out['extractionMethod']).to.equal('llm');
      } finally {
        await slow.close();
      }
    });

    it('fails with TIMEOUT when the LLM outlasts its timeout', async () => {
      llm.setBehaviour({ kind: 'slow', delayMs: 3_000 });
      const err = await pipeline.process(prompt(), { deadlineMs: Date.now() + 10_000 }).catch((e: TrawlError) => e);
      expect((err as TrawlError).code).to.equal('TIMEOUT');
    });

    it('fails with UPSTREAM_ERROR when the LLM is down and EXTRACTION_FAILED when it answers garbage', async () => {
      llm.setBehaviour({ kind: 'status', status: 500 });
      expect(((await pipeline.process(prompt(), { deadlineMs: Date.now() + 10_000 }).catch((e: TrawlError) => e)) as TrawlError).code).to.equal('UPSTREAM_ERROR');
      llm.setBehaviour({ kind: 'garbage' });
      expect(((await pipeline.process(prompt(), { deadlineMs: Date.now() + 10_000 }).catch((e: TrawlError) => e)) as TrawlError).code).to.equal('EXTRACTION_FAILED');
    });
  });
});
