import { expect } from 'chai';
import { findCaptcha } from '../../../workers/fetching/captcha-detector.js';

describe('captcha detector', () => {
  const found: Array<[string, string, Record<string, unknown>]> = [
    ['a reCAPTCHA v2 checkbox', '<form><div class="g-recaptcha" data-sitekey="6Lc-key_1"></div></form>', { kind: 'recaptcha_v2', sitekey: '6Lc-key_1' }],
    [
      'an invisible reCAPTCHA v2 with a callback',
      '<div class="g-recaptcha" data-sitekey="6Lc-inv" data-size="invisible" data-callback="onSubmit"></div>',
      { kind: 'recaptcha_v2', sitekey: '6Lc-inv', invisible: true, callback: 'onSubmit' },
    ],
    ['a reCAPTCHA v2 rendered by script', `<script>grecaptcha.render('box', { 'sitekey': '6Lc-rendered', theme: 'dark' });</script>`, { kind: 'recaptcha_v2', sitekey: '6Lc-rendered' }],
    ['a reCAPTCHA v2 frame', '<iframe src="https://www.google.com/recaptcha/api2/anchor?ar=1&k=6Lc-frame&co=aHR0&hl=en"></iframe>', { kind: 'recaptcha_v2', sitekey: '6Lc-frame' }],
    [
      'reCAPTCHA v3 from its loader and execute call',
      `<script src="https://www.google.com/recaptcha/api.js?render=6Lc-v3"></script><script>grecaptcha.execute('6Lc-v3', {action: 'login'})</script>`,
      { kind: 'recaptcha_v3', sitekey: '6Lc-v3', action: 'login' },
    ],
    ['reCAPTCHA v3 without a named action', '<script src="/recaptcha/api.js?hl=en&render=6Lc-v3b"></script>', { kind: 'recaptcha_v3', sitekey: '6Lc-v3b', action: 'verify' }],
    ['an hCaptcha widget', '<div class="h-captcha" data-sitekey="a5f74b19-9e45-40e0-b45d-47ff91b7a6c2" data-callback="done"></div>', { kind: 'hcaptcha', sitekey: 'a5f74b19-9e45-40e0-b45d-47ff91b7a6c2', callback: 'done' }],
    ['an hCaptcha frame', '<iframe src="https://newassets.hcaptcha.com/captcha/v1/abc/static/hcaptcha.html#frame=checkbox&sitekey=hc-frame-key"></iframe>', { kind: 'hcaptcha', sitekey: 'hc-frame-key' }],
    ['a Turnstile widget with its action', '<div class="cf-turnstile" data-sitekey="0x4AAAAAAA" data-action="signup"></div>', { kind: 'turnstile', sitekey: '0x4AAAAAAA', action: 'signup' }],
    ['hCaptcha rendered into an element found by id', `<script>hcaptcha.render(document.getElementById('c'), { sitekey: 'hc-by-id' })</script>`, { kind: 'hcaptcha', sitekey: 'hc-by-id' }],
    ['Turnstile rendered by script', `<script>turnstile.render('#w', { sitekey: '0x4BBBB', callback: f })</script>`, { kind: 'turnstile', sitekey: '0x4BBBB' }],
  ];
  for (const [what, html, widget] of found) {
    it(`finds ${what}`, () => {
      expect(findCaptcha(html)).to.deep.equal(widget);
    });
  }

  const none: Array<[string, string]> = [
    ['an ordinary page', '<h1>Harbour news</h1><p>Ships came in.</p>'],
    ['reCAPTCHA loaded for explicit rendering with no widget yet', '<script src="https://www.google.com/recaptcha/api.js?render=explicit"></script>'],
    ['a widget element without a site key', '<div class="g-recaptcha"></div>'],
    ['an article about captchas', '<p>The g-recaptcha and h-captcha widgets ask for a sitekey.</p>'],
  ];
  for (const [what, html] of none) {
    it(`finds nothing in ${what}`, () => {
      expect(findCaptcha(html)).to.equal(null);
    });
  }
});
