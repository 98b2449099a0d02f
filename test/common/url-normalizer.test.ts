import { expect } from 'chai';
import { NormalizedUrlSet, normalisePercentEncoding, normalizeUrl } from '../../common/url-normalizer.js';

describe('discovery/URL normaliser', () => {
  const same: Array<[string, string, string]> = [
    ['lower-cases scheme and host', 'HTTPS://Example.COM/Path', 'https://example.com/Path'],
    ['removes the default port', 'http://example.com:80/a', 'http://example.com/a'],
    ['removes the default https port', 'https://example.com:443/a', 'https://example.com/a'],
    ['keeps another port', 'https://example.com:8443/a', 'https://example.com:8443/a'],
    ['drops the fragment', 'https://example.com/a#section', 'https://example.com/a'],
    ['resolves dot segments', 'https://example.com/a/./b/../c', 'https://example.com/a/c'],
    ['gives an empty path a slash', 'https://example.com', 'https://example.com/'],
    ['upper-cases escape hex', 'https://example.com/a%2fb%c3%a9', 'https://example.com/a%2Fb%C3%A9'],
    ['decodes escapes of unreserved characters', 'https://example.com/%7Euser/%41-%5F', 'https://example.com/~user/A-_'],
    ['removes a trailing dot of the host', 'https://example.com./a', 'https://example.com/a'],
    ['encodes an international host as punycode', 'https://bücher.example/a', 'https://xn--bcher-kva.example/a'],
    ['removes utm_ parameters, fbclid and gclid', 'https://e.test/a?utm_source=x&id=3&UTM_Medium=y&fbclid=1&gclid=2', 'https://e.test/a?id=3'],
    ['drops a query left empty', 'https://e.test/a?utm_campaign=z', 'https://e.test/a'],
    ['sorts parameters by name, keeping repeated ones in order', 'https://e.test/?b=2&a=9&b=1&a=8', 'https://e.test/?a=9&a=8&b=2&b=1'],
    ['drops empty parameters', 'https://e.test/?a=1&&b=2&', 'https://e.test/?a=1&b=2'],
  ];
  for (const [behaviour, input, expected] of same) {
    it(behaviour, () => {
      expect(normalizeUrl(input)).to.equal(expected);
    });
  }

  it('never re-encodes query values', () => {
    expect(normalizeUrl('https://e.test/?q=a,b+c')).to.equal('https://e.test/?q=a,b+c');
    expect(normalizeUrl('https://e.test/?q=a%2Cb')).to.equal('https://e.test/?q=a%2Cb');
  });

  it('resolves relative URLs against a base', () => {
    expect(normalizeUrl('../x?b=1&a=2#f', 'https://e.test/a/b/c')).to.equal('https://e.test/a/x?a=2&b=1');
  });

  it('returns null for other schemes and unparsable input', () => {
    expect(normalizeUrl('mailto:a@e.test')).to.equal(null);
    expect(normalizeUrl('javascript:void(0)')).to.equal(null);
    expect(normalizeUrl('ftp://e.test/file')).to.equal(null);
    expect(normalizeUrl('http://')).to.equal(null);
    expect(normalizeUrl('/relative-without-base')).to.equal(null);
  });

  it('keeps, strips or adds a trailing slash as configured, never touching the root', () => {
    expect(normalizeUrl('https://e.test/a/')).to.equal('https://e.test/a/');
    expect(normalizeUrl('https://e.test/a/', undefined, { trailingSlash: 'strip' })).to.equal('https://e.test/a');
    expect(normalizeUrl('https://e.test/a//', undefined, { trailingSlash: 'strip' })).to.equal('https://e.test/a');
    expect(normalizeUrl('https://e.test/a', undefined, { trailingSlash: 'add' })).to.equal('https://e.test/a/');
    expect(normalizeUrl('https://e.test/', undefined, { trailingSlash: 'strip' })).to.equal('https://e.test/');
  });

  it('can keep the query order and tracking parameters', () => {
    const url = 'https://e.test/?z=1&utm_source=x&a=2';
    expect(normalizeUrl(url, undefined, { sortQuery: false, removeTracking: false })).to.equal(url);
    expect(normalizeUrl(url, undefined, { sortQuery: false })).to.equal('https://e.test/?z=1&a=2');
  });

  it('removes extra tracking parameters named by the caller', () => {
    expect(normalizeUrl('https://e.test/?ref=nav&id=1', undefined, { extraTrackingParameters: ['REF'] })).to.equal('https://e.test/?id=1');
  });

  it('normalises percent-encoding alone', () => {
    expect(normalisePercentEncoding('%2f%41%zz')).to.equal('%2FA%zz');
  });

  describe('NormalizedUrlSet', () => {
    it('adds each page once, whatever its spelling', () => {
      const set = new NormalizedUrlSet();
      expect(set.add('https://E.test/a?b=1&a=2#x')).to.equal('https://e.test/a?a=2&b=1');
      expect(set.add('https://e.test:443/a?a=2&b=1&utm_source=n')).to.equal(null);
      expect(set.add('/a?a=2&b=1', 'https://e.test/other')).to.equal(null);
      expect(set.add('https://e.test/b')).to.equal('https://e.test/b');
      expect(set.size).to.equal(2);
      expect(set.has('https://e.test/b#top')).to.equal(true);
      expect(set.has('https://e.test/c')).to.equal(false);
      expect([...set.values()]).to.deep.equal(['https://e.test/a?a=2&b=1', 'https://e.test/b']);
    });

    it('refuses what is not an http(s) URL', () => {
      const set = new NormalizedUrlSet();
      expect(set.add('mailto:x@e.test')).to.equal(null);
      expect(set.size).to.equal(0);
    });

    it('applies its options to dedup', () => {
      const set = new NormalizedUrlSet({ trailingSlash: 'strip' });
      set.add('https://e.test/docs/');
      expect(set.add('https://e.test/docs')).to.equal(null);
    });
  });
});
