import { expect } from 'chai';
import { linkBase, resolveFoundLink } from '../../../workers/discovery/link-resolution.js';

/** What the URL parser alone answers: the reference the remembered answers must equal. */
function parsed(href: string, base: string): string | null {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#')) return null;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

const HREFS = [
  'page.html', './page.html', '../up.html', '../../top/', '.', '..', '/root', '/root?q=1#f', '//cdn.test/lib.js', '\\\\cdn.test\\x',
  '\\back', '?page=2', '?', 'http:rel.html', 'http:/one-slash', 'https://abs.test/a#frag', 'HTTP://Upper.TEST/X', ' /spaced ', '\t../tab',
  'a\nb.html', 'mailto:x@y.test', 'javascript:void(0)', 'ftp://files.test/x', '#top', '', 'https://[bad', 'http://%zz/', 'caf\u00e9.html',
];

const BASES = [
  'https://e.test/docs/guide/page.html',
  'https://e.test/docs/other/page.html?x=1#s',
  'https://e.test/',
  'http://e.test/docs/guide/page.html',
  'https://user:pw@e.test:8443/docs/guide/',
  'https://f.test/docs/guide/page.html',
  'https://e.test/docs/guide/page.html?y=2',
];

describe('discovery/link resolution', () => {
  it('answers what the URL parser answers for every link against every base, whatever was resolved before', () => {
    // Every base twice, in an order that puts bases sharing a directory or an origin next to each other and apart.
    for (const base of [...BASES, ...BASES.slice().reverse()]) {
      const parts = linkBase(base)!;
      for (const href of HREFS) expect(resolveFoundLink(href, parts), `${JSON.stringify(href)} against ${base}`).to.equal(parsed(href, base));
    }
  });

  it('splits a base into its origin and directory, credentials and port kept', () => {
    expect(linkBase('https://user:pw@e.test:8443/docs/a.html?q#f')).to.deep.equal({
      href: 'https://user:pw@e.test:8443/docs/a.html?q#f',
      origin: 'https://user:pw@e.test:8443',
      directory: 'https://user:pw@e.test:8443/docs/',
    });
    expect(linkBase('HTTPS://E.test')).to.deep.equal({ href: 'https://e.test/', origin: 'https://e.test', directory: 'https://e.test/' });
    expect(linkBase('not a url')).to.equal(null);
  });

  it('keeps a link relative to the directory apart from the same link under another directory', () => {
    const a = linkBase('https://e.test/a/page.html')!;
    const b = linkBase('https://e.test/b/page.html')!;
    expect(resolveFoundLink('next.html', a)).to.equal('https://e.test/a/next.html');
    expect(resolveFoundLink('next.html', b)).to.equal('https://e.test/b/next.html');
    expect(resolveFoundLink('/next.html', a)).to.equal('https://e.test/next.html');
    expect(resolveFoundLink('/next.html', linkBase('https://other.test/a/')!)).to.equal('https://other.test/next.html');
  });
});
