import { expect } from 'chai';
import { DomainScope, registrableDomain } from '../../../workers/discovery/domain-scope.js';

describe('discovery/domain scope', () => {
  it('finds the registrable domain with the public suffix list', () => {
    expect(registrableDomain('a.b.example.co.uk')).to.equal('example.co.uk');
    expect(registrableDomain('www.example.com')).to.equal('example.com');
    expect(registrableDomain('alice.github.io')).to.equal('alice.github.io');
    expect(registrableDomain('127.0.0.1')).to.equal(null);
    expect(registrableDomain('localhost')).to.equal(null);
  });

  describe('without subdomains', () => {
    const scope = new DomainScope('https://docs.example.com/start');

    it('keeps the start host, either scheme', () => {
      expect(scope.contains('https://docs.example.com/other')).to.equal(true);
      expect(scope.contains('http://docs.example.com/other')).to.equal(true);
    });

    it('treats www. and the bare host as one site', () => {
      expect(new DomainScope('https://example.com/').contains('https://www.example.com/a')).to.equal(true);
      expect(new DomainScope('https://www.example.com/').contains('https://example.com/a')).to.equal(true);
    });

    it('leaves out subdomains, the parent domain and other sites', () => {
      expect(scope.contains('https://api.docs.example.com/')).to.equal(false);
      expect(scope.contains('https://example.com/')).to.equal(false);
      expect(scope.contains('https://example.org/')).to.equal(false);
    });

    it('leaves out other ports, other schemes and unparsable URLs', () => {
      expect(scope.contains('https://docs.example.com:8443/')).to.equal(false);
      expect(scope.contains('ftp://docs.example.com/')).to.equal(false);
      expect(scope.contains('not a url')).to.equal(false);
    });
  });

  describe('with subdomains', () => {
    const scope = new DomainScope('https://docs.example.co.uk/', { includeSubdomains: true });

    it('keeps every host of the same registrable domain', () => {
      expect(scope.contains('https://example.co.uk/')).to.equal(true);
      expect(scope.contains('https://shop.example.co.uk/')).to.equal(true);
      expect(scope.contains('https://a.b.example.co.uk/')).to.equal(true);
    });

    it('leaves out other domains under the same public suffix', () => {
      expect(scope.contains('https://other.co.uk/')).to.equal(false);
    });

    it('keeps sites under a private suffix apart', () => {
      const pages = new DomainScope('https://alice.github.io/', { includeSubdomains: true });
      expect(pages.contains('https://bob.github.io/')).to.equal(false);
      expect(pages.contains('https://docs.alice.github.io/')).to.equal(true);
    });

    it('matches an IP address or localhost only exactly', () => {
      const local = new DomainScope('http://127.0.0.1:8080/', { includeSubdomains: true });
      expect(local.contains('http://127.0.0.1:8080/a')).to.equal(true);
      expect(local.contains('http://127.0.0.2:8080/a')).to.equal(false);
      expect(new DomainScope('http://localhost:3000/', { includeSubdomains: true }).contains('http://a.localhost:3000/')).to.equal(false);
    });
  });
});
