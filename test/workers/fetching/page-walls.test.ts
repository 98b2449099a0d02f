import { expect } from 'chai';
import { detectWall, refusalCaptcha } from '../../../workers/fetching/page-walls.js';
import { cutInto } from '../../fixtures/text-pieces.js';

const doc = (body: string, head = '') => `<!DOCTYPE html><html><head><title>Harbour</title>${head}</head><body>${body}</body></html>`;
const article = (paragraphs: number, extra = '') =>
  `<article><h1>Dredging the channel</h1>${Array.from({ length: paragraphs }, (_, i) => `<p>Paragraph ${i + 1}: the dredger worked the outer channel through the night, moving silt past the breakwater and out to the spoil ground.</p>`).join('')}${extra}</article>`;
/** The wall found in the page; the same page cut into pieces (as a fetched page's start is decoded) must give the same answer. */
const at = (html: string, requestedUrl = 'https://news.example/story', finalUrl = requestedUrl) => {
  const whole = detectWall({ html, requestedUrl, finalUrl });
  for (const size of [5, 97, 4096]) expect(detectWall({ html: cutInto(html, size), requestedUrl, finalUrl }), `in pieces of ${size}`).to.deep.equal(whole);
  return whole;
};
const notFree = (selector?: string) =>
  `<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":false${selector ? `,"hasPart":{"@type":"WebPageElement","isAccessibleForFree":false,"cssSelector":"${selector}"}` : ''}}</script>`;

describe('walls in front of page content', () => {
  it('finds no wall in a small ordinary page', () => {
    expect(at(doc('<h1>Tides</h1><p>High water at 18:40.</p>'))).to.equal(null);
  });

  describe('soft 404', () => {
    const page = (title: string, body: string) => `<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`;
    const nav = '<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/tides">Tides</a></nav>';

    it('classifies a page that answers but says, in its title or a top heading, that it was not found', () => {
      const cases = [
        page('Page not found &#8211; Harbour Post', `${nav}<p>Sorry, we could not find that page.</p><form><input name="q"></form>`),
        page('Harbour Post', `<h1>Harbour Post</h1>${nav}<h1>404</h1><p>Nothing here.</p>`),
        page('Error 404 | Harbour', '<p>Try the home page.</p>'),
        page('Seite nicht gefunden', '<p>Die Seite existiert nicht.</p>'),
        page('Harbour', '<h1>P&aacute;gina no encontrada</h1>'),
        page('ページが見つかりません', '<p>トップへ</p>'),
      ];
      for (const html of cases) {
        const wall = at(html);
        expect(wall, html).to.deep.include({ code: 'TARGET_NOT_FOUND', classification: 'soft_404', escalate: false });
      }
      expect(at(cases[0]!)!.message).to.contain('Page not found – Harbour Post');
    });

    it('leaves pages about 404s, and not-found pages with the content of a page, alone', () => {
      expect(at(page('How to fix 404 errors on your site', article(3)))).to.equal(null);
      expect(at(page('Flight 404 to Oslo', '<p>Boarding at gate 12.</p>'))).to.equal(null);
      expect(at(page('Lost and found', '<h1>Found on the quay</h1><p>A blue umbrella.</p>'))).to.equal(null);
      // A page whose title says not found but which shows an article's worth of text is that text.
      expect(at(page('Page not found', article(15)))).to.equal(null);
    });
  });

  describe('captcha', () => {
    it('classifies a small page held by a captcha widget as captcha, to escalate', () => {
      const wall = at(doc('<h1>One more step</h1><form><div class="h-captcha" data-sitekey="k1"></div></form>'));
      expect(wall).to.deep.include({ code: 'CHALLENGE_DETECTED', classification: 'captcha', escalate: true });
      expect(wall!.message).to.contain('hCaptcha');
    });

    it('classifies a refusal page asking for a captcha as captcha, however much it says', () => {
      expect(refusalCaptcha(doc(article(12, '<div class="cf-turnstile" data-sitekey="0x4AA"></div>')))).to.deep.include({ code: 'CHALLENGE_DETECTED', classification: 'captcha' });
      expect(refusalCaptcha(doc('<h1>Forbidden</h1><p>Solve the captcha below.</p>'))).to.equal(null);
    });

    it('leaves an article whose comment form has a captcha alone', () => {
      expect(at(doc(article(12, '<form><textarea name="comment"></textarea><div class="g-recaptcha" data-sitekey="k2"></div></form>')))).to.equal(null);
    });
  });

  describe('paywall', () => {
    it('recognises a teaser marked not free with a subscription wall', () => {
      const wall = at(doc(article(2, '<div class="paywall-prompt"><h2>Subscribe to continue reading</h2></div>'), notFree()));
      expect(wall).to.deep.include({ code: 'PAYWALL_DETECTED', classification: 'paywall', escalate: false });
    });

    it('recognises a long page marked not free whose paywalled section did not come', () => {
      expect(at(doc(article(14, '<div class="locked"></div>'), notFree('.locked')))?.code).to.equal('PAYWALL_DETECTED');
    });

    it('lets through a page marked not free whose paywalled section was delivered', () => {
      expect(at(doc(`<div class="locked">${article(14)}</div>`, notFree('.locked')))).to.equal(null);
    });

    it('recognises microdata marking and a vendor wall container', () => {
      expect(at(doc(`<meta itemprop="isAccessibleForFree" content="False">${article(1)}<div class="tp-modal">Start your free trial</div>`))?.code).to.equal('PAYWALL_DETECTED');
    });

    it('recognises a long page marked not free in microdata, whichever attribute comes first, whose section did not come', () => {
      const section = '<div class="members-part"></div>';
      for (const mark of ['<meta itemprop="isAccessibleForFree" content="false">', '<meta content="false" itemprop="isAccessibleForFree">']) {
        const json = '<script type="application/ld+json">{"hasPart":{"cssSelector":".members-part"}}</script>';
        expect(at(doc(`${mark}${article(14, section)}`, json))?.code, mark).to.equal('PAYWALL_DETECTED');
      }
    });

    it('leaves a long article marked free alone, whatever it says about subscribing', () => {
      const free = '<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":true}</script>';
      expect(at(doc(article(14, '<aside><p>Subscribe to our newsletter, become a member.</p><input type="password"></aside>'), free))).to.equal(null);
    });

    it('recognises a wall container with a call to subscribe, however long the page', () => {
      const wall = `<div id="regwall"><p>This article is available only to subscribers. Already a subscriber? Sign in</p></div>`;
      expect(at(doc(article(14, wall)))?.code).to.equal('PAYWALL_DETECTED');
    });

    it('recognises a wall container however its class or id is written, however long the page', () => {
      const call = '<p>Subscribe to continue reading this story.</p>';
      const containers = [
        `<div class="story-footer js-paywall-overlay">${call}</div>`,
        `<div CLASS = 'story-footer regwall'>${call}</div>`,
        `<div class=meter-wall-inline>${call}</div>`,
        `<section data-kind="x" id="Premium-Wall">${call}</section>`,
        `<div role="dialog" data-paywall="hard">${call}</div>`,
      ];
      for (const container of containers) expect(at(doc(article(14, container)))?.code, container).to.equal('PAYWALL_DETECTED');
    });

    it('leaves a long page alone whose wall names stand only in a link, a script or its text', () => {
      const elsewhere = [
        '<a href="https://premium.news.example/abo/paywall?url=story">Subscribe to continue reading our archive</a>',
        '<script>var config = { paywall: "off", html: "<div class=\\"paywall\\">Subscribe to continue reading</div>" };</script>',
        '<p>The paywall debate: should you subscribe to continue reading the news?</p>',
      ];
      for (const markup of elsewhere) expect(at(doc(article(14, markup))), markup).to.equal(null);
    });

    it('recognises a teaser replaced by "subscribe to keep reading" without markup', () => {
      expect(at(doc(`${article(1)}<p>Become a member to keep reading this story.</p>`))?.code).to.equal('PAYWALL_DETECTED');
    });

    const articles: Array<[string, string]> = [
      ['an article that mentions subscribing', doc(article(10, '<p>Readers can subscribe to the tide tables at the harbour office.</p>'))],
      ['an article with a newsletter box', doc(article(10, '<aside class="newsletter">Subscribe to our newsletter</aside>'))],
      ['a page with an empty paywall container', doc(article(10, '<div id="paywall-container"></div>'))],
      ['a short note about a paywall', doc('<p>Our paywall goes live next month; subscribe if you like.</p>')],
      ['a long article marked not free with no wall', doc(article(14), notFree())],
    ];
    for (const [what, html] of articles) {
      it(`leaves ${what} alone`, () => {
        expect(at(html)).to.equal(null);
      });
    }
  });

  describe('login wall', () => {
    const form = '<form method="post"><input type="email" name="email"><input type="password" name="password"><button>Sign in</button></form>';

    it('recognises a redirect to a sign-in form', () => {
      const wall = at(doc(`<main>${form}</main>`.replace('Sign in', 'Go')), 'https://news.example/members/report', 'https://news.example/account/login?next=%2Fmembers');
      expect(wall).to.deep.include({ code: 'REQUIRES_AUTH', classification: 'login_wall', escalate: false });
    });

    it('recognises a sign-in form served in place of the page', () => {
      expect(at(doc(`<h1>Log in to read</h1>${form}`), 'https://news.example/story/42')?.code).to.equal('REQUIRES_AUTH');
    });

    it('leaves a sign-in page asked for by its own address alone', () => {
      expect(at(doc(`<h1>Log in</h1>${form}`), 'https://news.example/login')).to.equal(null);
    });

    it('leaves an article with a sign-in box in its sidebar alone', () => {
      expect(at(doc(article(12, `<aside>${form}</aside>`)))).to.equal(null);
    });

    it('leaves a sign-up form alone', () => {
      expect(at(doc('<h1>Create your account</h1><form><input type="email"><input type="password"><button>Sign up</button></form>'), 'https://news.example/join')).to.equal(null);
    });
  });
});
