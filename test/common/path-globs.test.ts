import { expect } from 'chai';
import { anchoredPattern, compilePathGlob, matchablePath, PathFilter } from '../../common/path-globs.js';

describe('discovery/path globs', () => {
  const cases: Array<[string, string, boolean]> = [
    ['/blog/*', '/blog/post', true],
    ['/blog/*', '/blog/2024/post', false],
    ['/blog/*', '/blog', false],
    ['/blog/*', '/blog/post/', true],
    ['/blog/**', '/blog', true],
    ['/blog/**', '/blog/2024/01/post', true],
    ['/blog/**', '/blogs/x', false],
    ['/docs/**/*.html', '/docs/a/b/c.html', true],
    ['/docs/**/*.html', '/docs/c.html', true],
    ['/docs/**/*.html', '/docs/c.htm', false],
    ['**/api/*', '/v1/api/users', true],
    ['/*', '/.well-known', true],
    ['/*/about', '/en/about', true],
    ['/*/about', '/en/us/about', false],
    ['/{en,de}/**', '/de/x/y', true],
    ['/{en,de}/**', '/fr/x', false],
    ['blog/*', '/blog/post', true],
  ];
  for (const [pattern, path, expected] of cases) {
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
      expect(compilePathGlob(pattern)(path)).to.equal(expected);
    });
  }

  it('anchors patterns at the root unless they start with / or *', () => {
    expect(anchoredPattern('docs/*')).to.equal('/docs/*');
    expect(anchoredPattern('**/x')).to.equal('**/x');
    expect(anchoredPattern(' /a ')).to.equal('/a');
  });

  it('matches the decoded path of a URL, keeping an encoded slash inside its segment', () => {
    expect(matchablePath('https://e.test/caf%C3%A9/menu?x=1#y')).to.equal('/café/menu');
    expect(matchablePath('https://e.test/a%2Fb')).to.equal('/a%2Fb');
    expect(matchablePath('/bad%E0%A4%A')).to.equal('/bad%E0%A4%A');
    expect(compilePathGlob('/café/*')(matchablePath('https://e.test/caf%C3%A9/menu'))).to.equal(true);
    expect(compilePathGlob('/a/*')(matchablePath('https://e.test/a%2Fb/c'))).to.equal(false);
  });

  describe('PathFilter', () => {
    it('lets everything through without patterns', () => {
      expect(new PathFilter().allows('https://e.test/anything/at/all')).to.equal(true);
    });

    it('keeps only included paths', () => {
      const filter = new PathFilter({ include: ['/blog/**', '/docs/*'] });
      expect(filter.allows('https://e.test/blog/a/b')).to.equal(true);
      expect(filter.allows('https://e.test/docs/intro')).to.equal(true);
      expect(filter.allows('https://e.test/docs/a/b')).to.equal(false);
      expect(filter.allows('https://e.test/shop')).to.equal(false);
    });

    it('lets exclude win over include', () => {
      const filter = new PathFilter({ include: ['/blog/**'], exclude: ['/blog/drafts/**', '**/*.pdf'] });
      expect(filter.allows('https://e.test/blog/post')).to.equal(true);
      expect(filter.allows('https://e.test/blog/drafts/x')).to.equal(false);
      expect(filter.allows('https://e.test/blog/files/a.pdf')).to.equal(false);
    });

    it('excludes without includes', () => {
      const filter = new PathFilter({ include: null, exclude: ['/admin/**'] });
      expect(filter.allows('/admin/users')).to.equal(false);
      expect(filter.allows('/public')).to.equal(true);
    });

    it('ignores the query when matching', () => {
      expect(new PathFilter({ exclude: ['/search'] }).allows('https://e.test/search?q=blog')).to.equal(false);
    });
  });
});
