import { expect } from 'chai';
import { decodeText } from '../../../workers/fetching/charset.js';
import type { FetchedPage, FetchFailure, FetchOutcome } from '../../../workers/fetching/fetch-result.js';

/** A fetched page with its body decoded, as the pipeline thread sees it. */
export type Ok = Omit<FetchedPage, 'body'> & { body: string; raw: Buffer };
export type Failed = FetchFailure;

export function ok(outcome: FetchOutcome): Ok {
  expect(outcome.kind, JSON.stringify({ ...outcome, body: undefined })).to.equal('ok');
  const page = outcome as FetchedPage;
  return { ...page, body: decodeText(page.body, page.charset), raw: page.body };
}

export function failed(outcome: FetchOutcome): Failed {
  expect(outcome.kind, JSON.stringify({ ...outcome, body: undefined })).to.equal('failed');
  return outcome as Failed;
}
