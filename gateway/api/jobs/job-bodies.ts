import { fromBinary } from '@bufbuild/protobuf';
import { LRUCache } from 'lru-cache';
import { isEndedJob } from '../../../common/job-status.js';
import { JobSchema, type Job } from '../../../proto/gen/trawl/v1/scrape_pb.js';

/**
 * The JSON bodies of ended jobs, rendered once. Clients poll a job until it
 * ends and then read it again and again; rendering an answer (decoding the
 * job and its result from protobuf, the result's content and metadata into
 * JSON, the whole into a string) was the largest part of the gateway's CPU
 * for `GET /api/v1/jobs/{id}` (docs/benchmarks.md).
 *
 * Nothing here decides what a caller sees: the control plane is still asked
 * for every request (it authenticates the caller, counts the rate limits,
 * hides another account's job and answers RESULT_UNAVAILABLE once a result
 * has expired). What is kept is the rendering of its answer: a body is a
 * function of the job's wire bytes alone, and it is reused only when the
 * control plane answers with the same bytes it was rendered from. Only ended
 * jobs are kept (a running job's answer changes from one poll to the next),
 * the least recently read going first once the bodies and their wire forms
 * pass `maxBytes` (none with 0).
 */
export interface JobBodies {
  /** The JSON body for a job in wire form (GetJobResponseWire.job). */
  body(jobId: string, wire: Uint8Array): string;
  /** How many bodies are kept, and their size with their wire forms. */
  readonly size: { entries: number; bytes: number };
}

interface Kept {
  wire: Buffer;
  body: string;
}

export function createJobBodies(opts: { maxBytes: number; render(job: Job): string }): JobBodies {
  const render = (wire: Uint8Array) => {
    const job = fromBinary(JobSchema, wire);
    return { job, body: opts.render(job) };
  };
  if (opts.maxBytes <= 0) return { body: (_jobId, wire) => render(wire).body, size: { entries: 0, bytes: 0 } };
  const kept = new LRUCache<string, Kept>({ maxSize: opts.maxBytes, sizeCalculation: (entry) => entry.wire.byteLength + entry.body.length });
  return {
    body(jobId, wire) {
      const known = kept.get(jobId);
      if (known?.wire.equals(wire)) return known.body;
      const { job, body } = render(wire);
      // A copy of the bytes: the answer's may be a view of a larger network buffer. An entry larger than the whole is not kept.
      if (isEndedJob(job.status)) kept.set(jobId, { wire: Buffer.from(wire), body });
      else if (known) kept.delete(jobId);
      return body;
    },
    get size() {
      return { entries: kept.size, bytes: kept.calculatedSize };
    },
  };
}
