import { expect } from 'chai';
import { detectChallenge, hasBlockMarkers } from '../../../workers/fetching/challenge-detector.js';

const none = {};

describe('challenge detector', () => {
  const challenges: Array<[string, string, Record<string, string>]> = [
    ['Cloudflare', '<html><head><title>Just a moment...</title></head><body></body></html>', none],
    ['Cloudflare', '<script>window._cf_chl_opt={cvId:"3"}</script>', none],
    ['Cloudflare', '<title>Attention Required! | Cloudflare</title>', none],
    ['Cloudflare', '<html></html>', { 'cf-mitigated': 'challenge' }],
    ['Imperva Incapsula', '<iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=1">x</iframe>', none],
    ['Imperva Incapsula', 'Request unsuccessful. Incapsula incident ID: 123', none],
    ['DataDome', "<script>var dd={'host':'geo.captcha-delivery.com'}</script>", none],
    ['PerimeterX', '<div id="px-captcha"></div>', none],
    ['Akamai', '<TITLE>Access Denied</TITLE> Reference&#32;&#35;18', none],
    ['Akamai', '<title>Access Denied</title> https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18', none],
    ['Akamai', '<title>Access Denied</title>', { 'set-cookie': 'ak_bmsc=ABC; Path=/' }],
  ];
  for (const [vendor, body, headers] of challenges) {
    it(`recognises ${vendor} from ${Object.keys(headers).length ? 'its headers' : JSON.stringify(body.slice(0, 40))}`, () => {
      expect(detectChallenge({ headers, body })).to.equal(vendor);
    });
  }

  const ordinary: Array<[string, string]> = [
    ['a page with the Cloudflare bot-management beacon', '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script><h1>News</h1>'],
    ['a page with the Imperva resource script', '<script src="/_Incapsula_Resource?SWJIYLWA=719d"></script><p>Shop</p>'],
    ['a page with the DataDome tag', '<script src="https://js.datadome.co/tags.js"></script><p>Shop</p>'],
    ['an article that mentions "Access Denied"', '<title>Why I got Access Denied at the border</title><p>A travel story.</p>'],
    ['a page titled "Just a moment" in its text only', '<title>News</title><p>Just a moment... said the chef.</p>'],
  ];
  for (const [what, body] of ordinary) {
    it(`does not flag ${what}`, () => {
      expect(detectChallenge({ headers: {}, body })).to.equal(null);
    });
  }

  it('scans only the start of a long body', () => {
    const body = `<p>${'x'.repeat(200_000)}</p><div id="px-captcha"></div>`;
    expect(detectChallenge({ headers: {}, body })).to.equal(null);
  });

  it('sees block markers in a 503 page, and none in a plain outage page', () => {
    expect(hasBlockMarkers({ headers: {}, body: 'We have detected unusual traffic from your network' })).to.equal(true);
    expect(hasBlockMarkers({ headers: {}, body: 'Please solve the CAPTCHA' })).to.equal(true);
    expect(hasBlockMarkers({ headers: { 'cf-mitigated': 'block' }, body: '' })).to.equal(true);
    expect(hasBlockMarkers({ headers: {}, body: '<h1>Down for maintenance</h1><p>Back at 10:00.</p>' })).to.equal(false);
  });
});
