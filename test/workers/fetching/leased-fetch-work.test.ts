import { create } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../common/config.js';
import { JS_SHELL } from '../../../common/tier-escalation.js';
import { AttemptRefSchema, FetchTaskSchema, type FetchTask } from '../../../proto/gen/trawl/v1/work_pb.js';
import type { FetchedPage } from '../../../workers/fetching/fetch-result.js';
import { createFetchWork, type FetchedInput } from '../../../workers/fetching/leased-fetch-work.js';
import { createContentPipeline, type ContentPipeline } from '../../../workers/pipeline/content-pipeline.js';
import { AttemptFailure } from '../../../workers/runtime/attempt-failure.js';
import type { AttemptScope } from '../../../workers/runtime/attempt.js';
import { createDomainLease } from '../../../workers/runtime/domain-lease.js';
import { scratchRedis } from '../../fixtures/scratch-redis.js';

const page = (body: string, head = '') =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Harbour notes</title>${head}</head><body>${body}</body></html>`;
const article = page(
  `<nav><a href="/">Home</a></nav><article><h1>Dredging the channel</h1>${Array.from(
    { length: 12 },
    (_, i) => `<p>Paragraph ${i + 1}: the dredger worked the outer channel through the night, moving silt past the breakwater.</p>`,
  ).join('')}</article>`,
);
const loginWall = page('<h1>Log in to read</h1><form method="post"><input type="email" name="email"><input type="password" name="password"><button>Sign in</button></form>');
const shell = page('<div id="root"></div><script src="/bundle.js"></script>');

/** A body in a buffer of its own, as fetchers answer it (so it can move to a thread). */
const ownBuffer = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

function answer(body: Buffer, contentType = 'text/html'): FetchedPage {
  return {
    kind: 'ok',
    statusCode: 200,
    finalUrl: 'https://news.example/story',
    redirects: [],
    headers: { 'content-type': contentType },
    contentType,
    charset: 'utf-8',
    body,
    bytes: body.length,
    timings: { ttfbMs: 3, totalMs: 5 },
  };
}

describe('a fetch tier’s work on one page', function () {
  this.timeout(30_000);
  const scratch = scratchRedis('fetch-work');
  const config = loadConfig({});
  let pipeline: ContentPipeline;
  /** The documents handed to the pipeline, in order, with whether each was handed over before acquire had answered. */
  let handed: Array<{ url: string; duringAcquire: boolean }>;
  let acquiring: boolean;

  before(() => {
    pipeline = createContentPipeline({ threads: 1, budgetMs: 10_000, llm: config.llm });
  });
  after(() => pipeline.close());
  beforeEach(() => {
    handed = [];
    acquiring = false;
  });

  function work(body: () => Buffer, contentType?: string) {
    const watched: ContentPipeline = {
      ...pipeline,
      process: (document, opts) => {
        handed.push({ url: document.input.url, duringAcquire: acquiring });
        return pipeline.process(document, opts);
      },
    };
    return createFetchWork({
      readInput: async () => null,
      sessionCookiesKey: (jobId) => `cookies:${jobId}`,
      lease: createDomainLease(scratch.redis, { limit: 4, ttlMs: 10_000, keyPrefix: scratch.prefix }),
      fetch: async () => answer(body(), contentType),
      pipeline: watched,
      workerId: 'test-worker',
      detectShells: true,
      proxies: { premium: [], guard: config.ssrf, readOwnProxy: async () => null },
    });
  }

  const task = (): FetchTask =>
    create(FetchTaskSchema, { url: 'https://news.example/story', method: 'GET', timeoutMs: 10_000, mode: 'auto', pipeline: { formats: ['markdown'] } });
  const scope = (): AttemptScope => ({
    ref: create(AttemptRefSchema, { jobId: randomUUID(), attemptId: randomUUID(), tier: '1' }),
    deadlineMs: Date.now() + 10_000,
    admitted: Promise.resolve(),
    signal: new AbortController().signal,
  });
  async function acquire(steps: ReturnType<typeof work>, t: FetchTask, s: AttemptScope) {
    acquiring = true;
    try {
      return await steps.acquire(t, s);
    } finally {
      acquiring = false;
    }
  }

  it('starts converting an HTML page while its checks run, to the result a conversion after them gives', async () => {
    const steps = work(() => ownBuffer(article));
    const t = task();
    const s = scope();
    const before = Date.now();
    const acquired = await acquire(steps, t, s);
    expect(handed).to.deep.equal([{ url: 'https://news.example/story', duringAcquire: true }]);
    expect(acquired.input.converting).to.be.an.instanceOf(Promise);
    expect(acquired.processStartedMs).to.be.within(before, Date.now());
    const early = await steps.process(t, acquired.input, s);

    // The same page converted only once asked, as pages other than HTML are.
    const later: FetchedInput = { ...answer(ownBuffer(article)), document: 'text' };
    const sequential = await steps.process(t, later, s);
    expect(Buffer.from(early).toString('utf8')).to.equal(Buffer.from(sequential).toString('utf8'));
    expect(Buffer.from(early).toString('utf8')).to.contain('Paragraph 12: the dredger worked the outer channel');
    expect(handed).to.have.length(2);
  });

  it('still refuses a walled page whose conversion had started, from the text read before the body moved', async () => {
    const steps = work(() => ownBuffer(loginWall));
    let failure: unknown;
    try {
      await acquire(steps, task(), scope());
    } catch (err) {
      failure = err;
    }
    expect(failure).to.be.an.instanceOf(AttemptFailure);
    expect((failure as AttemptFailure).code).to.equal('REQUIRES_AUTH');
    expect(handed).to.deep.equal([{ url: 'https://news.example/story', duringAcquire: true }]);
  });

  it('still classifies a JavaScript-only shell, which it converts as any page', async () => {
    const steps = work(() => ownBuffer(shell));
    const acquired = await acquire(steps, task(), scope());
    expect(acquired.report.classification).to.equal(JS_SHELL);
    expect(acquired.input.converting).to.be.an.instanceOf(Promise);
    await acquired.input.converting;
  });

  it('converts a document that is not HTML only when asked', async () => {
    const pdfLike = () => ownBuffer('%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n');
    const steps = work(pdfLike, 'application/pdf');
    const acquired = await acquire(steps, task(), scope());
    expect(acquired.input.converting).to.equal(undefined);
    expect(acquired.processStartedMs).to.equal(undefined);
    expect(handed).to.deep.equal([]);
  });
});
