import { create } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { ExtractRequestSchema } from '../../proto/gen/trawl/v1/extract_pb.js';
import { ScrapeRequestSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import { buildTask, extractRequestToJson, requestToJson } from '../../control-plane/scheduler/dispatcher.js';

const attempt = { id: 'a1', job_id: 'j1', attempt_number: 2, tier: '2', pool: 'fetch-t2', price_microcents: 300 };
const deadline = new Date('2026-01-01T00:00:00Z');

describe('task envelopes', () => {
  it('carry a scrape as a fetch payload with the attempt it is', () => {
    const request = create(ScrapeRequestSchema, {
      url: 'https://example.com/api',
      method: 'POST',
      body: '{"q":1}',
      contentType: 'application/json',
      timeout: 30,
      formats: ['markdown', 'rag'],
      includeRawHtml: true,
      advanced: { only_main_content: false },
      extractionSchema: { type: 'object', properties: { title: { type: 'string' } } },
      extractionPrompt: 'the title',
      ragOptions: { chunkSize: 500, overlap: 50 },
    });
    const task = buildTask({ id: 'j1', account_id: 'acc', kind: 'scrape', request: requestToJson(request), deadline_at: deadline, input_key: null }, attempt);
    expect(task.attempt).to.include({ jobId: 'j1', attemptId: 'a1', attemptNumber: 2, tier: '2', pool: 'fetch-t2', accountId: 'acc' });
    expect(task.attempt!.deadlineUnixMs).to.equal(BigInt(deadline.getTime()));
    if (task.payload.case !== 'fetch') throw new Error(`a ${task.payload.case} payload`);
    const fetch = task.payload.value;
    expect(fetch).to.include({ url: 'https://example.com/api', method: 'POST', body: '{"q":1}', inputKey: '', contentType: 'application/json', timeoutMs: 30_000, includeRawHtml: true });
    expect(fetch.pipeline).to.deep.include({ formats: ['markdown', 'rag'], onlyMainContent: false, extractionPrompt: 'the title', ragChunkSize: 500, ragOverlap: 50 });
    expect(fetch.pipeline!.extractionSchema).to.deep.equal({ type: 'object', properties: { title: { type: 'string' } } });
  });

  it('leave a parked body out of the task, and default method, content type and timeout', () => {
    const request = create(ScrapeRequestSchema, { url: 'https://example.com/', method: 'POST', body: 'x'.repeat(10) });
    const task = buildTask({ id: 'j1', account_id: 'acc', kind: 'scrape', request: requestToJson(request), deadline_at: deadline, input_key: 'k:body' }, attempt);
    if (task.payload.case !== 'fetch') throw new Error(`a ${task.payload.case} payload`);
    expect(task.payload.value).to.include({ body: '', inputKey: 'k:body', contentType: 'application/json', timeoutMs: 90_000 });
    expect(task.payload.value.pipeline!.onlyMainContent).to.equal(true);
    const get = buildTask({ id: 'j1', account_id: 'acc', kind: 'scrape', request: requestToJson(create(ScrapeRequestSchema, { url: 'https://example.com/' })), deadline_at: deadline, input_key: null }, attempt);
    expect(get.payload.value).to.include({ method: 'GET' });
  });

  it('carry an extraction as an extract payload, its content waiting in Redis', () => {
    const request = create(ExtractRequestSchema, { content: '<p>hi</p>', contentType: 'html', sourceUrl: 'https://example.com/', formats: ['json'], evidence: true, extractionProfile: 'product' });
    const json = extractRequestToJson(request);
    expect(json).to.not.have.property('content');
    const task = buildTask({ id: 'j1', account_id: 'acc', kind: 'extract', request: json, deadline_at: deadline, input_key: 'k:input' }, { ...attempt, tier: '3.5', pool: 'extract' });
    if (task.payload.case !== 'extract') throw new Error(`a ${task.payload.case} payload`);
    expect(task.payload.value).to.include({ sourceUrl: 'https://example.com/', inputKey: 'k:input', contentType: 'html' });
    expect(task.payload.value.pipeline).to.deep.include({ formats: ['json'], onlyMainContent: true, evidence: true, extractionProfile: 'product' });
  });
});
