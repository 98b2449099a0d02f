import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  createSharedBrowser,
  PLAYWRIGHT_DISABLED_FEATURES,
  POOL_DISABLED_FEATURES,
  poolFeatureOptions,
  type SharedBrowser,
} from '../../../workers/fetching/chromium.js';
import { installRequestFilter } from '../../../workers/fetching/request-filter.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { createGuardedConnect } from '../../../common/ssrf-guard.js';

const executablePath = process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The browser process's id, from Chromium itself. */
async function browserPid(browser: Browser): Promise<number> {
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  await session.detach();
  return processInfo.find((p) => p.type === 'browser')!.id;
}

/** The command line the browser process was started with. */
async function commandLine(browser: Browser): Promise<string[]> {
  return fs.readFileSync(`/proc/${await browserPid(browser)}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/** The renderer processes the browser runs now (descendants of its browser process). */
async function renderers(browser: Browser): Promise<number> {
  const root = await browserPid(browser);
  const parent = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  let count = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      for (let pid = Number(entry); pid > 1; pid = parent(pid)) {
        if (pid === root) {
          count++;
          break;
        }
      }
    } catch {
      // The process ended while it was read.
    }
  }
  return count;
}

/** The pool's Chromium sends nothing around the guarded proxy: WebRTC's UDP is the one channel a SOCKS proxy does not carry. */
describe("the browser pool's Chromium", function () {
  this.timeout(60_000);
  let proxy: GuardedSocksProxy;
  let browser: SharedBrowser;
  let udp: dgram.Socket;
  let packets = 0;

  before(async () => {
    udp = dgram.createSocket('udp4');
    udp.on('message', () => packets++);
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.2', () => resolve()));
    proxy = await startGuardedSocksProxy({ connect: createGuardedConnect({ allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }) });
    browser = createSharedBrowser({ executablePath, proxyUrl: proxy.url });
  });
  after(async () => {
    await browser.close();
    await proxy.close();
    udp.close();
  });

  it('sends no WebRTC (STUN) packet to a private address', async () => {
    const context = await (await browser.get()).newContext();
    const page = await context.newPage();
    await page.setContent('<p>peer</p>');
    const stun = `stun:127.0.0.2:${udp.address().port}`;
    const candidates = (await page.evaluate(`new Promise((resolve) => {
      const found = [];
      const pc = new RTCPeerConnection({ iceServers: [{ urls: ${JSON.stringify(stun)} }] });
      pc.onicecandidate = (e) => { if (e.candidate) found.push(e.candidate.type); };
      pc.createDataChannel('x');
      pc.createOffer().then((offer) => pc.setLocalDescription(offer));
      setTimeout(() => resolve(found), 2500);
    })`)) as string[];
    await context.close();
    expect(packets).to.equal(0);
    expect(candidates).not.to.include('srflx');
  });

  it("keeps Playwright's own switch as Playwright writes it, which the pool's merged switch replaces", async () => {
    const plain = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const switches = (await commandLine(plain)).filter((arg) => arg.startsWith('--disable-features='));
      expect(switches, 'a new playwright-core turns off other features: update PLAYWRIGHT_DISABLED_FEATURES').to.deep.equal([
        `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.join(',')}`,
      ]);
    } finally {
      await plain.close();
    }
  });

  it("turns off Playwright's features and the pool's own in one switch, the only one Chromium reads", async () => {
    const switches = (await commandLine(await browser.get())).filter((arg) => arg.startsWith('--disable-features='));
    expect(switches).to.deep.equal([`--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...POOL_DISABLED_FEATURES].join(',')}`]);
  });

  it('keeps no spare renderer beside a filtered tab, where a Chromium with only the spare renderer left on does', async () => {
    const server = http.createServer((_req, res) => res.end('<p>page</p>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const others = poolFeatureOptions(POOL_DISABLED_FEATURES.filter((f) => f !== 'SpareRendererForSitePerProcess'));
    const plain = await chromium.launch({ executablePath, ignoreDefaultArgs: others.ignoreDefaultArgs, args: [...CHROMIUM_ARGS, ...others.args] });
    try {
      const loaded = async (b: Browser) => {
        const context = await b.newContext();
        const page = await context.newPage();
        await installRequestFilter(await context.newCDPSession(page), { loadImages: false });
        await page.goto(url);
        await new Promise((r) => setTimeout(r, 500));
        const count = await renderers(b);
        await context.close();
        return count;
      };
      const [pool, reference] = [await loaded(await browser.get()), await loaded(plain)];
      expect(pool).to.be.at.least(1);
      expect(pool, 'the other browser runs a spare renderer besides the tab').to.be.below(reference);
    } finally {
      await plain.close();
      server.close();
    }
  });

  it("makes no address-bar popup page for a new context, where a plain Playwright Chromium makes one", async () => {
    const popups = async (b: Browser) => {
      const context = await b.newContext();
      await context.newPage();
      await new Promise((r) => setTimeout(r, 500));
      const session = await b.newBrowserCDPSession();
      const { targetInfos } = await session.send('Target.getTargets');
      await session.detach();
      await context.close();
      return targetInfos.filter((t) => t.url.startsWith('chrome://omnibox-popup')).length;
    };
    const plain = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      expect(await popups(plain), "a plain Chromium's popup, which the pool turns off").to.be.at.least(1);
    } finally {
      await plain.close();
    }
    expect(await popups(await browser.get())).to.equal(0);
  });

  it('launches again after Chromium dies', async () => {
    const first = await browser.get();
    await first.close();
    const second = await browser.get();
    expect(second).not.to.equal(first);
    expect(second.isConnected()).to.equal(true);
  });
});
