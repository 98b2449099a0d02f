import { expect } from 'chai';
import { createRedirectPolicy, parseAllowlistEntry } from '../../../control-plane/oauth/redirect-policy.js';

const BASE = 'https://api.trawl.example';

describe('OAuth redirect allow-list', () => {
  const production = createRedirectPolicy({ production: true, publicBaseUrl: BASE, allowlist: ['n8n.partner.example', '*.workflows.example', 'com.partner.app:/oauth'] });
  const development = createRedirectPolicy({ production: false, publicBaseUrl: BASE, allowlist: [] });

  it("allows the service's own host and its subdomains over https", () => {
    for (const uri of ['https://api.trawl.example/cb', 'https://app.api.trawl.example/oauth/callback?x=1', 'https://api.trawl.example:8443/cb']) {
      expect(production.allows(uri, []), uri).to.equal(true);
    }
    for (const uri of ['http://api.trawl.example/cb', 'https://trawl.example/cb', 'https://evilapi.trawl.example/cb', 'https://api.trawl.example.evil.example/cb']) {
      expect(production.allows(uri, []), uri).to.equal(false);
    }
  });

  it('allows http on its own host only when the public base URL is http', () => {
    const plain = createRedirectPolicy({ production: true, publicBaseUrl: 'http://trawl.internal:8080', allowlist: [] });
    expect(plain.allows('http://trawl.internal:8080/cb', [])).to.equal(true);
    expect(plain.allows('http://n8n.trawl.internal/cb', [])).to.equal(true);
    expect(plain.allows('http://other.internal/cb', [])).to.equal(false);
  });

  it('allows localhost and 127.0.0.1 outside production only, whatever the lists say', () => {
    const listed = createRedirectPolicy({ production: true, publicBaseUrl: 'http://127.0.0.1:8080', allowlist: ['localhost', 'http://localhost:5678/cb'] });
    for (const uri of ['http://localhost:5678/cb', 'http://127.0.0.1:8080/cb', 'https://localhost/cb', 'http://[::1]:5678/cb']) {
      expect(development.allows(uri, []), uri).to.equal(true);
      expect(production.allows(uri, ['localhost', uri]), uri).to.equal(false);
      expect(listed.allows(uri, []), uri).to.equal(false);
    }
    expect(development.allows('http://localhost.evil.example/cb', [])).to.equal(false);
    expect(development.allows('http://127.0.0.1.nip.io/cb', [])).to.equal(false);
  });

  it('allows other domains only when listed, for the deployment or for the client, over https', () => {
    expect(production.allows('https://n8n.partner.example/rest/oauth2-credential/callback', [])).to.equal(true);
    expect(production.allows('http://n8n.partner.example/cb', [])).to.equal(false);
    expect(production.allows('https://sub.n8n.partner.example/cb', [])).to.equal(false);
    expect(production.allows('https://a.workflows.example/cb', [])).to.equal(true);
    expect(production.allows('https://workflows.example/cb', [])).to.equal(false);
    expect(production.allows('https://zapier.example/cb', [])).to.equal(false);
    expect(production.allows('https://zapier.example/cb', ['zapier.example'])).to.equal(true);
    expect(development.allows('https://n8n.partner.example/cb', [])).to.equal(false);
  });

  it('matches exact URI entries character for character, custom schemes included', () => {
    expect(production.allows('com.partner.app:/oauth', [])).to.equal(true);
    expect(production.allows('com.partner.app:/oauth2', [])).to.equal(false);
    expect(production.allows('https://make.example/cb', ['https://make.example/cb'])).to.equal(true);
    expect(production.allows('https://make.example/cb?x', ['https://make.example/cb'])).to.equal(false);
    expect(production.allows('https://make.example/other', ['https://make.example/cb'])).to.equal(false);
  });

  it('refuses fragments, user information and what is not an absolute URL', () => {
    for (const uri of ['https://api.trawl.example/cb#x', 'https://user:pw@api.trawl.example/cb', '/relative/cb', 'api.trawl.example/cb', '']) {
      expect(production.allows(uri, []), uri).to.equal(false);
      expect(development.allows(uri, []), uri).to.equal(false);
    }
  });

  it('compares hosts in their ASCII form', () => {
    const idn = createRedirectPolicy({ production: true, publicBaseUrl: BASE, allowlist: ['bücher.example'] });
    expect(idn.allows('https://bücher.example/cb', [])).to.equal(true);
    expect(idn.allows('https://xn--bcher-kva.example/cb', [])).to.equal(true);
  });

  it('refuses allow-list entries that are neither a URL, a host nor *.host', () => {
    for (const bad of ['not a host', 'https://', '*.', 'https://x.example/cb#frag', 'a/b', '*']) {
      expect(() => parseAllowlistEntry(bad), bad).to.throw(/allow-list entry/);
    }
    expect(parseAllowlistEntry(' *.Example.COM ')).to.deep.equal({ kind: 'subdomains', of: 'example.com' });
    expect(() => createRedirectPolicy({ production: false, publicBaseUrl: BASE, allowlist: ['bad entry'] })).to.throw(/bad entry/);
  });
});
