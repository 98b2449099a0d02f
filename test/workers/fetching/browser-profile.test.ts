import { expect } from 'chai';
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

  async function fingerprint(profile: ReturnType<typeof stealthProfile>) {
    const shared = createSharedBrowser({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', proxyUrl: proxy.url, extraArgs: profile.launchArgs });
    browsers.push(shared);
    const browser = await shared.get();
    const context = await browser.newContext(profile.context(browser.version()));
    if (profile.initScript) await context.addInitScript(profile.initScript);
    const page = await context.newPage();
    await page.setContent('<p>profile</p>');
    const seen = (await page.evaluate(FINGERPRINT)) as Record<string, unknown>;
    await context.close();
    return { seen, version: browser.version() };
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

  it('the plain tier-4 profile leaves the marks of automation, which is what tier 3 exists for', async () => {
    const { seen } = await fingerprint(plainProfile('TrawlTest/1.0'));
    expect(seen['webdriver']).to.equal(true);
    expect(seen['userAgent']).to.equal('TrawlTest/1.0');
  });
});
