import dgram from 'node:dgram';
import { expect } from 'chai';
import { createSharedBrowser, type SharedBrowser } from '../../../workers/fetching/chromium.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { createGuardedConnect } from '../../../common/ssrf-guard.js';

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
    browser = createSharedBrowser({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', proxyUrl: proxy.url });
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

  it('launches again after Chromium dies', async () => {
    const first = await browser.get();
    await first.close();
    const second = await browser.get();
    expect(second).not.to.equal(first);
    expect(second.isConnected()).to.equal(true);
  });
});
