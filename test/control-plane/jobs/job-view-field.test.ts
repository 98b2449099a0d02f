import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { jobView, jobViewField, type LoadedJob } from '../../../control-plane/jobs/job-view.js';
import type { JobRecord } from '../../../control-plane/jobs/job-store.js';
import { GetJobResponseSchema, ScrapeResultSchema } from '../../../proto/gen/trawl/v1/scrape_pb.js';

/** A job record as the job store loads it. */
function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: '3b0c6f0e-2a51-4c53-9a77-0c1b6d2f6b11',
    account_id: 'acc-1',
    status: 'succeeded',
    url: 'https://news.example/story',
    mode: 'auto',
    formats: ['markdown', 'text'],
    sync: true,
    current_tier: '2',
    attempts: 2,
    reserved_microcents: '1000',
    charged_microcents: '500',
    refunded_microcents: '500',
    result_key: 'result:1',
    error_code: null,
    error_message: null,
    error_http_status: null,
    error_details: null,
    created_at: new Date('2026-11-28T10:00:00Z'),
    started_at: new Date('2026-11-28T10:00:01Z'),
    completed_at: new Date('2026-11-28T10:00:02Z'),
    attempt_list: [
      { tier: '1', status: 'failed', result: 'blocked', credits_microcents: 0, duration_ms: 40 },
      { tier: '2', status: 'succeeded', result: 'success', credits_microcents: 500, duration_ms: 90 },
    ],
    balance_microcents: '123456',
    request: { url: 'https://news.example/story', formats: ['markdown', 'text'] },
    input_key: null,
    ...overrides,
  };
}

const storedResult = toBinary(
  ScrapeResultSchema,
  create(ScrapeResultSchema, {
    url: 'https://news.example/story',
    statusCode: 200,
    title: 'Dredging the channel',
    content: { kind: { case: 'stringValue', value: '# Dredging the channel\n\nThe dredger worked the outer channel.' } },
    metadata: { language: 'en', description: 'Silt past the breakwater' },
    headers: { 'content-type': 'text/html' },
    finalUrl: 'https://news.example/story',
  }),
);

/** The answer as the gateway decodes it, from the wire form of jobViewField. */
const viaField = (loaded: LoadedJob) => {
  const answer = create(GetJobResponseSchema);
  answer.$unknown = [jobViewField(loaded, GetJobResponseSchema.field.job!.number)];
  return fromBinary(GetJobResponseSchema, toBinary(GetJobResponseSchema, answer));
};
/** The answer built as a message, every field decoded. */
const viaMessage = (loaded: LoadedJob) => fromBinary(GetJobResponseSchema, toBinary(GetJobResponseSchema, create(GetJobResponseSchema, { job: jobView(loaded, { binary: false }) })));

describe('a job answered in wire form (jobViewField)', () => {
  it('decodes to the same job as the message, with its result', () => {
    const loaded: LoadedJob = { record: record(), storedResult, balanceMicrocents: 123456n };
    const decoded = viaField(loaded);
    expect(decoded).to.deep.equal(viaMessage(loaded));
    expect(decoded.job?.result?.title).to.equal('Dredging the channel');
    expect(decoded.job?.billing?.escalations.map((e) => e.tier)).to.deep.equal(['1', '2']);
  });

  it('decodes to the same job as the message without a result: failed, or still running', () => {
    const failed: LoadedJob = {
      record: record({ status: 'failed', result_key: null, error_code: 'BLOCKED', error_message: 'Blocked at every tier', error_http_status: 422, error_details: { tiers: ['1', '2'] } }),
      storedResult: undefined,
      balanceMicrocents: 0n,
    };
    expect(viaField(failed)).to.deep.equal(viaMessage(failed));
    expect(viaField(failed).job?.error?.code).to.equal('BLOCKED');
    const running: LoadedJob = { record: record({ status: 'running', completed_at: null, result_key: null }), storedResult: undefined, balanceMicrocents: 0n };
    expect(viaField(running)).to.deep.equal(viaMessage(running));
    expect(viaField(running).job?.result).to.equal(undefined);
  });

  it('encodes an ended record once, and a record still open each time', () => {
    const ended = record();
    const first = viaField({ record: ended, storedResult, balanceMicrocents: 0n });
    // The kept form is the record's as first encoded: an ended record never changes (the job loader keeps it too).
    ended.url = 'https://changed.example/';
    expect(viaField({ record: ended, storedResult, balanceMicrocents: 0n }).job?.url).to.equal(first.job?.url);
    const open = record({ status: 'running', completed_at: null, result_key: null });
    expect(viaField({ record: open, storedResult: undefined, balanceMicrocents: 0n }).job?.status).to.equal('running');
    open.status = 'succeeded';
    open.url = 'https://news.example/next';
    expect(viaField({ record: open, storedResult, balanceMicrocents: 0n }).job).to.deep.include({ status: 'succeeded', url: 'https://news.example/next' });
  });
});

describe("a job's billing: savings and the suggestion", () => {
  const billingOf = (over: Partial<JobRecord>) => jobView({ record: record(over), storedResult, balanceMicrocents: 0n }, { binary: false }).billing!;

  it('counts savings against the browser tier with the same add-ons, and suggests the tier that worked', () => {
    // Tier 2 after tier 1, 2.5 credits: 20 on the browser tier.
    expect(billingOf({}).savings).to.equal(17.5);
    expect(billingOf({}).optimizationSuggestion).to.contain('force_tier "2"');
    // A screenshot costs its credit on the browser tier too: it saves nothing.
    const withScreenshot = billingOf({ charged_microcents: '2200', current_tier: '3', request: { advanced: { render_js: true, screenshot: true } } });
    expect(withScreenshot.savings).to.equal(10);
  });

  it('suggests nothing after the captcha tier, which cannot be forced', () => {
    const solved = billingOf({
      current_tier: '5',
      charged_microcents: '20000',
      attempt_list: [
        { tier: '1', status: 'failed', result: 'challenge_detected', credits_microcents: 0, duration_ms: 40 },
        { tier: '5', status: 'succeeded', result: 'success', credits_microcents: 20000, duration_ms: 9000 },
      ],
    });
    expect(solved.optimizationSuggestion).to.equal(undefined);
    expect(solved.savings).to.equal(0);
  });
});
