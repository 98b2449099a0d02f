import { expect } from 'chai';
import { loadConformanceCases, scoreMatcher } from '../../../bench/robots/conformance-cases.js';
import {
  normaliseRobotsPattern,
  robotsPathOf,
  robotsPatternMatches,
  robotsProductToken,
  RobotsTxt,
  ROBOTS_MAX_BYTES,
} from '../../../workers/discovery/robots-txt.js';

/** GOOGLE_SPECIFIC cases passed when the floor was set; it may rise, never fall. */
const GOOGLE_SPECIFIC_FLOOR = 22;

describe('discovery/robots.txt', () => {
  describe('conformance with the shared Google test-suite cases', () => {
    const cases = loadConformanceCases();
    const score = scoreMatcher(cases, (c) => RobotsTxt.parse(c.body).isAllowed(c.url, c.userAgent));

    it('loads all 400 cases', () => {
      expect(cases).to.have.length(400);
      expect(score.byType.STANDARD.total).to.equal(378);
    });

    it('passes every STANDARD case', () => {
      const failed = score.failures.filter((f) => f.type === 'STANDARD').map((f) => f.id);
      expect(failed).to.deep.equal([]);
      expect(score.byType.STANDARD.passed).to.equal(score.byType.STANDARD.total);
    });

    it(`passes at least ${GOOGLE_SPECIFIC_FLOOR} GOOGLE_SPECIFIC cases`, () => {
      expect(score.byType.GOOGLE_SPECIFIC.passed).to.be.at.least(GOOGLE_SPECIFIC_FLOOR);
    });
  });

  describe('groups', () => {
    it('uses the group naming the agent, case-insensitively, instead of the * group', () => {
      const robots = RobotsTxt.parse('User-agent: *\nDisallow: /\n\nUser-agent: TrawlBot\nDisallow: /private\n');
      expect(robots.isAllowed('https://a.test/page', 'trawlbot')).to.equal(true);
      expect(robots.isAllowed('https://a.test/private/x', 'TRAWLBOT')).to.equal(false);
      expect(robots.isAllowed('https://a.test/page', 'OtherBot')).to.equal(false);
    });

    it('applies one group to every agent its consecutive user-agent lines name', () => {
      const robots = RobotsTxt.parse('User-agent: a\nUser-agent: b\nDisallow: /x\nUser-agent: c\nDisallow: /y\n');
      expect(robots.isAllowed('https://s.test/x', 'a')).to.equal(false);
      expect(robots.isAllowed('https://s.test/x', 'b')).to.equal(false);
      expect(robots.isAllowed('https://s.test/y', 'b')).to.equal(true);
      expect(robots.isAllowed('https://s.test/y', 'c')).to.equal(false);
    });

    it('merges separate groups that name the same agent', () => {
      const robots = RobotsTxt.parse('User-agent: bot\nDisallow: /a\n\nUser-agent: other\nDisallow: /\n\nUser-agent: bot\nDisallow: /b\n');
      const policy = robots.forAgent('bot');
      expect(policy.isAllowed('https://s.test/a')).to.equal(false);
      expect(policy.isAllowed('https://s.test/b')).to.equal(false);
      expect(policy.isAllowed('https://s.test/c')).to.equal(true);
    });

    it('compares the product token of a user-agent line, not a prefix of the caller name', () => {
      const robots = RobotsTxt.parse('User-agent: Trawl/1.0 extra words\nDisallow: /\n');
      expect(robots.isAllowed('https://s.test/', 'Trawl')).to.equal(false);
      expect(robots.isAllowed('https://s.test/', 'TrawlBot')).to.equal(true);
    });

    it('allows everything for an agent whose group has no rules, ignoring the * group', () => {
      const robots = RobotsTxt.parse('User-agent: *\nDisallow: /\n\nUser-agent: bot\nAllow:\n');
      expect(robots.isAllowed('https://s.test/anything', 'bot')).to.equal(true);
    });

    it('ignores rules before the first user-agent line', () => {
      expect(RobotsTxt.parse('Disallow: /\nUser-agent: *\nDisallow: /x\n').isAllowed('https://s.test/y', 'bot')).to.equal(true);
    });

    it('keeps blank lines and comments from ending a group', () => {
      const robots = RobotsTxt.parse('User-agent: bot # ours\n\n# note\n\nDisallow: /x\n');
      expect(robots.isAllowed('https://s.test/x', 'bot')).to.equal(false);
    });
  });

  describe('matching', () => {
    const robots = RobotsTxt.parse(
      [
        'User-agent: *',
        'Disallow: /private',
        'Allow: /private/public',
        'Disallow: /*.pdf$',
        'Disallow: /search*q=',
        'Allow: /tie',
        'Disallow: /tie',
        'Disallow: /exact$',
      ].join('\n'),
    );
    const cases: Array<[string, boolean, string]> = [
      ['/private/x', false, 'prefix disallow'],
      ['/private/public/page', true, 'the longer allow wins'],
      ['/doc.pdf', false, '* wildcard with $ anchor'],
      ['/doc.pdf?x=1', true, '$ anchors the end of path and query'],
      ['/search?a=1&q=2', false, '* across characters'],
      ['/tie', true, 'allow wins a tie'],
      ['/exact', false, '$ matches the exact path'],
      ['/exactly', true, '$ stops longer paths'],
      ['/public', true, 'no rule allows'],
    ];
    for (const [path, allowed, why] of cases) {
      it(`${allowed ? 'allows' : 'disallows'} ${path} (${why})`, () => {
        expect(robots.isAllowed(`https://s.test${path}`, 'bot')).to.equal(allowed);
      });
    }

    it('matches patterns without backtracking blow-up on many wildcards', () => {
      const pattern = `/${'*a'.repeat(200)}b`;
      const path = `/${'a'.repeat(5_000)}`;
      const started = Date.now();
      expect(robotsPatternMatches(path, pattern)).to.equal(false);
      expect(Date.now() - started).to.be.below(2_000);
    });

    it('treats $ inside a pattern as a literal character', () => {
      expect(robotsPatternMatches('/a$b', '/a$b')).to.equal(true);
      expect(robotsPatternMatches('/ab', '/a$b')).to.equal(false);
    });

    it('compares paths case-sensitively', () => {
      expect(RobotsTxt.parse('User-agent: *\nDisallow: /Admin').isAllowed('https://s.test/admin', 'x')).to.equal(true);
    });

    it('treats an allowed /folder/index.html as allowing /folder/', () => {
      const robots = RobotsTxt.parse('User-agent: *\nDisallow: /\nAllow: /docs/index.html\n');
      expect(robots.isAllowed('https://s.test/docs/', 'x')).to.equal(true);
      expect(robots.isAllowed('https://s.test/docs/other', 'x')).to.equal(false);
    });
  });

  describe('percent-encoding', () => {
    it('encodes non-ASCII bytes of patterns and upper-cases escapes', () => {
      expect(normaliseRobotsPattern(Buffer.from('/café/%e2%82%ac', 'utf8').toString('latin1'))).to.equal('/caf%C3%A9/%E2%82%AC');
    });

    it('matches a UTF-8 pattern against the serialised URL', () => {
      const robots = RobotsTxt.parse('User-agent: *\nDisallow: /café\n');
      expect(robots.isAllowed(new URL('https://s.test/café/menu').href, 'x')).to.equal(false);
    });

    it('matches lower-case escapes in the URL against upper-case ones in the pattern', () => {
      const robots = RobotsTxt.parse('User-agent: *\nDisallow: /a%2Fb\n');
      expect(robots.isAllowed('https://s.test/a%2fb', 'x')).to.equal(false);
    });
  });

  describe('other lines', () => {
    it('reads Crawl-delay of the matching group, decimals included', () => {
      const robots = RobotsTxt.parse('User-agent: *\nCrawl-delay: 10\n\nUser-agent: bot\nCrawl-delay: 0.5\nDisallow: /x\n');
      expect(robots.forAgent('bot').crawlDelay).to.equal(0.5);
      expect(robots.forAgent('other').crawlDelay).to.equal(10);
      // The delay line ends the * group, so the bot's rules stay its own.
      expect(robots.isAllowed('https://s.test/x', 'other')).to.equal(true);
      expect(RobotsTxt.parse('User-agent: *\nCrawl-delay: soon\n').forAgent('x').crawlDelay).to.equal(null);
    });

    it('collects Sitemap lines from anywhere in the file, resolved and deduplicated', () => {
      const robots = RobotsTxt.parse(
        'Sitemap: https://s.test/a.xml\nUser-agent: *\nDisallow: /x\nsitemap: /b.xml\nSitemap: https://s.test/a.xml\nSitemap: ftp://s.test/c.xml\n',
        { robotsUrl: 'https://s.test/robots.txt' },
      );
      expect(robots.sitemaps).to.deep.equal(['https://s.test/a.xml', 'https://s.test/b.xml']);
      expect(robots.forAgent('any').sitemaps).to.deep.equal(robots.sitemaps);
    });

    it('lists the non-empty disallow patterns of the agent for reports', () => {
      const policy = RobotsTxt.parse('User-agent: *\nDisallow: /a\nDisallow:\nAllow: /b\nDisallow: /a\n').forAgent('x');
      expect(policy.disallowedPaths).to.deep.equal(['/a']);
    });

    it('accepts a missing colon and common misspellings of disallow', () => {
      expect(RobotsTxt.parse('user-agent bot\ndisallow /x\n').isAllowed('https://s.test/x', 'bot')).to.equal(false);
      expect(RobotsTxt.parse('User-agent: bot\nDissallow: /x\n').isAllowed('https://s.test/x', 'bot')).to.equal(false);
    });

    it('skips a UTF-8 byte-order mark at the start of the file', () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('User-agent: *\nDisallow: /x\n')]);
      expect(RobotsTxt.parse(body).isAllowed('https://s.test/x', 'bot')).to.equal(false);
    });

    it(`reads only the first ${ROBOTS_MAX_BYTES} bytes`, () => {
      const filler = `# ${'x'.repeat(1_000)}\n`.repeat(Math.ceil(ROBOTS_MAX_BYTES / 1_000));
      const robots = RobotsTxt.parse(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
      expect(robots.isAllowed('https://s.test/early', 'x')).to.equal(false);
      expect(robots.isAllowed('https://s.test/late', 'x')).to.equal(true);
    });

    it('has an allow-all file for a missing robots.txt and a disallow-all one for an unreachable one', () => {
      expect(RobotsTxt.allowAll().isAllowed('https://s.test/x', 'bot')).to.equal(true);
      expect(RobotsTxt.disallowAll().isAllowed('https://s.test/x', 'bot')).to.equal(false);
    });
  });

  describe('helpers', () => {
    it('takes the product token from a full User-Agent header', () => {
      expect(robotsProductToken('TrawlBot/0.1 (+https://trawl.dev/bot)')).to.equal('TrawlBot');
      expect(robotsProductToken('  my_crawler-x 2')).to.equal('my_crawler-x');
    });

    it('extracts path and query without fragment from a URL', () => {
      expect(robotsPathOf('https://s.test/a/b?q=1#frag')).to.equal('/a/b?q=1');
      expect(robotsPathOf('https://s.test')).to.equal('/');
      expect(robotsPathOf('https://s.test?q')).to.equal('/?q');
      expect(robotsPathOf('//s.test/x')).to.equal('/x');
    });
  });
});
