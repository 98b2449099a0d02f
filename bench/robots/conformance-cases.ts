/**
 * The robots.txt conformance cases of the shared data set
 * (shared/data/robotstxt beside the repo): 400 expectations over 80 bodies
 * from Google's robots.txt specification test suite. Read in place.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CASES_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/data/robotstxt/ctc-expectations.json',
);

export type CaseType = 'STANDARD' | 'GOOGLE_SPECIFIC';

export interface ConformanceCase {
  /** `file#index url useragent`, unique enough to name a failure. */
  id: string;
  /** The body as bytes: the data set's base64, so byte-order marks and invalid UTF-8 stay exact. */
  body: Buffer;
  url: string;
  userAgent: string;
  allowed: boolean;
  type: CaseType;
}

interface RawCase {
  file: string;
  test_index: number;
  robotstxt_b64: string;
  url: string;
  useragent: string;
  expected: 'ALLOWED' | 'DISALLOWED';
  test_type: CaseType;
}

export function loadConformanceCases(file = CASES_FILE): ConformanceCase[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as RawCase[];
  return raw.map((c) => ({
    id: `${c.file}#${c.test_index} ${JSON.stringify(c.url)} ${JSON.stringify(c.useragent)}`,
    body: Buffer.from(c.robotstxt_b64, 'base64'),
    url: c.url,
    userAgent: c.useragent,
    allowed: c.expected === 'ALLOWED',
    type: c.test_type,
  }));
}

export interface ConformanceScore {
  passed: number;
  total: number;
  byType: Record<CaseType, { passed: number; total: number }>;
  failures: ConformanceCase[];
}

/** Runs a matcher (true = allowed) over every case and counts the agreements. */
export function scoreMatcher(cases: ConformanceCase[], isAllowed: (c: ConformanceCase) => boolean): ConformanceScore {
  const score: ConformanceScore = {
    passed: 0,
    total: cases.length,
    byType: { STANDARD: { passed: 0, total: 0 }, GOOGLE_SPECIFIC: { passed: 0, total: 0 } },
    failures: [],
  };
  for (const c of cases) {
    const bucket = score.byType[c.type];
    bucket.total++;
    if (isAllowed(c) === c.allowed) {
      score.passed++;
      bucket.passed++;
    } else {
      score.failures.push(c);
    }
  }
  return score;
}
