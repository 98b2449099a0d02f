import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { plainProfile, stealthProfile } from '../../../workers/fetching/browser-profile.js';
import { createSharedBrowser, type SharedBrowser } from '../../../workers/fetching/chromium.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { createGuardedConnect } from '../../../common/ssrf-guard.js';

const FINGERPRINT = `(() => {
  const gl = document.createElement('canvas').getContext('webgl');
  const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
  return {
    webdriver: navigator.webdriver,
    userAgent: navigator.userAgent,
    platform: navigator.platform,
    languages: [...navigator.languages],
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    screen: [screen.width, screen.height],
    vendor: gl ? gl.getParameter(info ? info.UNMASKED_VENDOR_WEBGL : 37445) : null,
  };
})()`;

describe('browser profiles', function () {
  this.timeout(60_000);
  let proxy: GuardedSocksProxy;
  const browsers: SharedBrowser[] = [];

  before(async () => {
    proxy = await startGuardedSocksProxy({ connect: createGuardedConnect({ allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }) });
  });
  after(async () => {
    for (const b of browsers) await b.close();
    await proxy.close();
  });

  /** A page of the profile's, as the browser tiers open one (context, init script, page preparation). */
  async function openPage(profile: ReturnType<typeof stealthProfile>, locale = 'en-US') {
    const shared = createSharedBrowser({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', proxyUrl: proxy.url, extraArgs: profile.launchArgs });
    browsers.push(shared);
    const browser = await shared.get();
    const context = await browser.newContext(profile.context(browser.version(), locale));
    if (profile.initScript) await context.addInitScript(profile.initScript);
    const page = await context.newPage();
    if (profile.preparePage) await profile.preparePage(await context.newCDPSession(page), browser.version(), locale);
    return { context, page, version: browser.version() };
  }

  async function fingerprint(profile: ReturnType<typeof stealthProfile>, locale?: string) {
    const { context, page, version } = await openPage(profile, locale);
    await page.setContent('<p>profile</p>');
    const seen = (await page.evaluate(FINGERPRINT)) as Record<string, unknown>;
    await context.close();
    return { seen, version };
  }

  /** The Accept-Language of each request a page makes (the document, a stylesheet, an image, a fetch), by path. */
  async function acceptLanguages(profile: ReturnType<typeof stealthProfile>, locale?: string) {
    const seen: Record<string, string | undefined> = {};
    const site = http.createServer((req, res) => {
      // Whether Chromium asks for a favicon, and when, is its own affair.
      if (req.url !== '/favicon.ico') seen[req.url!] = req.headers['accept-language'];
      if (req.url !== '/') return res.end('x');
      res.setHeader('content-type', 'text/html');
      res.end('<link rel="stylesheet" href="/style.css"><img src="/picture.png"><script>fetch("/data.json")</script><p>page</p>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const { context, page } = await openPage(profile, locale);
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, { waitUntil: 'networkidle' });
      const languages = (await page.evaluate('[...navigator.languages]')) as string[];
      await context.close();
      return { headers: seen, languages };
    } finally {
      site.close();
    }
  }

  it('stealth presents one consistent desktop: no webdriver, the real Chromium version on its real platform', async () => {
    const { seen, version } = await fingerprint(stealthProfile());
    expect(seen['webdriver']).to.equal(false);
    expect(seen['userAgent']).to.contain(`Chrome/${version.split('.')[0]}.0.0.0`).and.contain('X11; Linux x86_64').and.not.contain('Headless');
    expect(seen['platform']).to.equal('Linux x86_64');
    expect(seen['languages']).to.deep.equal(['en-US', 'en']);
    expect(seen['timeZone']).to.equal('America/New_York');
    expect(seen['screen']).to.deep.equal([1920, 1080]);
  });

  it('stealth sends one Accept-Language, a person\'s Chromium\'s, on the navigation and every request the page makes', async () => {
    const english = await acceptLanguages(stealthProfile());
    expect(english.headers).to.deep.equal({ '/': 'en-US,en;q=0.9', '/style.css': 'en-US,en;q=0.9', '/picture.png': 'en-US,en;q=0.9', '/data.json': 'en-US,en;q=0.9' });
    expect(english.languages).to.deep.equal(['en-US', 'en']);
    const japanese = await acceptLanguages(stealthProfile(), 'ja-JP');
    expect(new Set(Object.values(japanese.headers))).to.deep.equal(new Set(['ja-JP,ja;q=0.9']));
    expect(japanese.languages).to.deep.equal(['ja-JP', 'ja']);
  });

  it('the plain tier-4 profile leaves the marks of automation, which is what tier 3 exists for', async () => {
    const { seen } = await fingerprint(plainProfile('TrawlTest/1.0'));
    expect(seen['webdriver']).to.equal(true);
    expect(seen['userAgent']).to.equal('TrawlTest/1.0');
  });
});
