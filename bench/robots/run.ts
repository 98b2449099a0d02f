/**
 * robots.txt conformance on the shared Google test-suite cases: our matcher
 * against the npm `robots-parser` package on the same 400 cases, with the
 * STANDARD and GOOGLE_SPECIFIC breakdowns and the time to parse and match
 * every case (best of several rounds).
 *
 *   npm run bench:robots [-- --rounds 20 --failures]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import robotsParserModule from 'robots-parser';
import { RobotsTxt } from '../../workers/discovery/robots-txt.js';
import { loadConformanceCases, scoreMatcher, type ConformanceCase, type ConformanceScore } from './conformance-cases.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    failures: { type: 'boolean', default: false },
  },
});

// The package's types declare an ES default export; at run time the CommonJS module is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

const cases = loadConformanceCases();

/**
 * robots-parser answers only for URLs of the origin its robots.txt URL names,
 * so each case gets a robots.txt URL on its own origin; when it still cannot
 * answer (an empty URL) it returns undefined, counted as allowed, the default
 * a crawler applies when no rule speaks.
 */
function robotsParserUrl(c: ConformanceCase): string {
  try {
    return new URL('/robots.txt', c.url).href;
  } catch {
    // An unparsable case URL keeps a placeholder origin.
    return 'http://example.com/robots.txt';
  }
}

/** A matcher prepared for one case: parsing done, so calling it measures matching alone. */
type PreparedMatcher = (c: ConformanceCase) => () => boolean;

const prepareRobotsParser: PreparedMatcher = (c) => {
  const robot = robotsParser(robotsParserUrl(c), c.body.toString('utf8'));
  return () => robot.isAllowed(c.url, c.userAgent) ?? true;
};

const prepareOurs: PreparedMatcher = (c) => {
  const policy = RobotsTxt.parse(c.body).forAgent(c.userAgent);
  return () => policy.isAllowed(c.url);
};

function bestMillis(run: () => void): number {
  let best = Infinity;
  for (let round = 0; round < Number(values.rounds); round++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function line(name: string, score: ConformanceScore, parseAndMatch: number, matchOnly: number): string {
  const s = score.byType.STANDARD;
  const g = score.byType.GOOGLE_SPECIFIC;
  return [
    `${name.padEnd(14)} ${score.passed} of ${score.total}`,
    `STANDARD ${s.passed} of ${s.total}`,
    `GOOGLE_SPECIFIC ${g.passed} of ${g.total}`,
    `parse+match ${parseAndMatch.toFixed(2)} ms`,
    `match only ${(matchOnly * 1000).toFixed(0)} us`,
  ].join('   ');
}

const tools: Array<[string, PreparedMatcher]> = [
  ['trawl', prepareOurs],
  ['robots-parser', prepareRobotsParser],
];

console.log(`robots.txt conformance: ${cases.length} cases from shared/data/robotstxt/ctc-expectations.json`);
console.log(`times: best of ${values.rounds} rounds over all cases; "match only" reuses each parsed file`);
for (const [name, prepare] of tools) {
  const score = scoreMatcher(cases, (c) => prepare(c)());
  const parseAndMatch = bestMillis(() => cases.forEach((c) => prepare(c)()));
  const prepared = cases.map(prepare);
  const matchOnly = bestMillis(() => prepared.forEach((match) => match()));
  console.log(line(name, score, parseAndMatch, matchOnly));
  if (values.failures) {
    for (const f of score.failures) console.log(`  fails ${f.type} ${f.id} expected ${f.allowed ? 'ALLOWED' : 'DISALLOWED'}`);
  }
}
