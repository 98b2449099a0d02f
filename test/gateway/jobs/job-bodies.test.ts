import { create, toBinary } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { expect } from 'chai';
import { JobSchema, ScrapeResultSchema, type Job } from '../../../proto/gen/trawl/v1/scrape_pb.js';
import { createJobBodies } from '../../../gateway/api/jobs/job-bodies.js';
import { presentJob } from '../../../gateway/api/jobs/presenters.js';

const JOB_A = '7d4bd7b2-2a43-4d3e-8f53-1c1b8f2f5f0a';
const JOB_B = '7d4bd7b2-2a43-4d3e-8f53-1c1b8f2f5f0b';
const JOB_C = '7d4bd7b2-2a43-4d3e-8f53-1c1b8f2f5f0c';

function wire(jobId: string, status: string, markdown = '# Title\n\nSome text.'): Uint8Array {
  return toBinary(
    JobSchema,
    create(JobSchema, {
      jobId,
      status,
      url: 'https://example.com/',
      result: status === 'succeeded' ? create(ScrapeResultSchema, { url: 'https://example.com/', statusCode: 200, content: create(ValueSchema, { kind: { case: 'stringValue', value: markdown } }) }) : undefined,
    }),
  );
}

/** Bodies rendered with the route's own presenter, counting the renders. */
function counted(maxBytes = 1 << 20) {
  const rendered: string[] = [];
  const bodies = createJobBodies({
    maxBytes,
    render(job: Job) {
      rendered.push(job.jobId);
      return JSON.stringify(presentJob(job));
    },
  });
  return { bodies, rendered };
}

describe('gateway job bodies', () => {
  it('renders an ended job once and answers the same body while the wire bytes are the same', () => {
    const { bodies, rendered } = counted();
    const first = bodies.body(JOB_A, wire(JOB_A, 'succeeded'));
    // A fresh copy of the same bytes, as another answer of the control plane would be.
    const second = bodies.body(JOB_A, wire(JOB_A, 'succeeded'));
    expect(second).to.equal(first);
    expect(rendered).to.deep.equal([JOB_A]);
    const parsed = JSON.parse(first);
    expect(parsed).to.include({ job_id: JOB_A, status: 'succeeded', poll_url: `/api/v1/jobs/${JOB_A}` });
    expect(parsed.result.content).to.equal('# Title\n\nSome text.');
  });

  it('renders again when the control plane answers different bytes for the same job', () => {
    const { bodies, rendered } = counted();
    bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'first'));
    const changed = bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'second'));
    expect(JSON.parse(changed).result.content).to.equal('second');
    expect(bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'second'))).to.equal(changed);
    expect(rendered).to.deep.equal([JOB_A, JOB_A]);
    expect(bodies.size.entries).to.equal(1);
  });

  it('keeps no body of a job that has not ended', () => {
    const { bodies, rendered } = counted();
    for (const status of ['pending', 'running', 'running']) expect(JSON.parse(bodies.body(JOB_A, wire(JOB_A, status))).status).to.equal(status);
    expect(rendered).to.have.length(3);
    expect(bodies.size).to.deep.equal({ entries: 0, bytes: 0 });
    for (const status of ['failed', 'rejected']) bodies.body(status === 'failed' ? JOB_B : JOB_C, wire(status === 'failed' ? JOB_B : JOB_C, status));
    expect(bodies.size.entries).to.equal(2);
  });

  it('lets the least recently read bodies go past its size', () => {
    const one = wire(JOB_A, 'succeeded', 'x'.repeat(1000));
    const { bodies: probe } = counted();
    probe.body(JOB_A, one);
    const entry = probe.size.bytes;
    // Room for two bodies of this size, not three.
    const { bodies, rendered } = counted(entry * 2 + 10);
    bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'x'.repeat(1000)));
    bodies.body(JOB_B, wire(JOB_B, 'succeeded', 'x'.repeat(1000)));
    bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'x'.repeat(1000))); // A read again: B is now the oldest
    bodies.body(JOB_C, wire(JOB_C, 'succeeded', 'x'.repeat(1000)));
    expect(bodies.size.entries).to.equal(2);
    expect(bodies.size.bytes).to.be.at.most(entry * 2 + 10);
    rendered.length = 0;
    bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'x'.repeat(1000)));
    bodies.body(JOB_C, wire(JOB_C, 'succeeded', 'x'.repeat(1000)));
    expect(rendered, 'A and C kept').to.deep.equal([]);
    bodies.body(JOB_B, wire(JOB_B, 'succeeded', 'x'.repeat(1000)));
    expect(rendered, 'B let go').to.deep.equal([JOB_B]);
  });

  it('keeps no body larger than its whole size', () => {
    const { bodies } = counted(100);
    const body = bodies.body(JOB_A, wire(JOB_A, 'succeeded', 'y'.repeat(500)));
    expect(JSON.parse(body).result.content).to.equal('y'.repeat(500));
    expect(bodies.size.entries).to.equal(0);
  });

  it('keeps nothing when given no memory, rendering every answer', () => {
    const { bodies, rendered } = counted(0);
    const first = bodies.body(JOB_A, wire(JOB_A, 'succeeded'));
    expect(bodies.body(JOB_A, wire(JOB_A, 'succeeded'))).to.equal(first);
    expect(rendered).to.deep.equal([JOB_A, JOB_A]);
    expect(bodies.size).to.deep.equal({ entries: 0, bytes: 0 });
  });
});
