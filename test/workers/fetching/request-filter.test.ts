import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createSharedBrowser, type SharedBrowser } from '../../../workers/fetching/chromium.js';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { decideRequest, installRequestFilter, isTrackerHost, type RequestFilterOptions } from '../../../workers/fetching/request-filter.js';
import { createGuardedConnect, type GuardOptions } from '../../../common/ssrf-guard.js';

/**
 * A page that asks for one of everything: a style, a script, a font, an
 * image, a video, a beacon, a tracker's script, and a script of another
 * origin (the same server on a second port).
 */
const everything = (other: string) => `<!DOCTYPE html><html><head><title>everything</title>
<link rel="stylesheet" href="/site.css"><script src="/app.js"></script>
<script src="http://www.google-analytics.com/analytics.js"></script><script src="${other}/lib.js"></script></head>
<body><p style="font-family: Harbour">Harbour text</p><img src="/photo.png"><video src="/clip.mp4" autoplay muted></video>
<script>navigator.sendBeacon('/beacon', 'x')</script></body></html>`;

describe('the browser request filter (in Chromium, through the DevTools Fetch domain)', function () {
  this.timeout(60_000);
  const guard: GuardOptions = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let proxy: GuardedSocksProxy;
  let site: http.Server;
  let second: http.Server;
  let base: string;
  let other: string;
  let shared: SharedBrowser;
  /** Paths the site served, with the test header each carried. */
  let served: Array<[string, string | undefined]> = [];
  /** Hosts the browser asked the proxy for. */
  let asked: string[] = [];

  before(async () => {
    const connect = createGuardedConnect(guard);
    proxy = await startGuardedSocksProxy({
      connect: (host, port) => {
        asked.push(host);
        return connect(host, port);
      },
    });
    site = http.createServer((req, res) => {
      served.push([req.url ?? '', req.headers['x-harbour'] as string | undefined]);
      const type = req.url === '/site.css' ? 'text/css' : req.url?.endsWith('.js') ? 'text/javascript' : req.url === '/photo.png' ? 'image/png' : 'text/html';
      if (req.url === '/site.css') return res.writeHead(200, { 'content-type': type }).end('@font-face { font-family: Harbour; src: url(/harbour.woff2); } p { color: navy }');
      if (type !== 'text/html') return res.writeHead(200, { 'content-type': type }).end('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(everything(other));
    });
    second = http.createServer(site.listeners('request')[0] as http.RequestListener);
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => second.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    other = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
    shared = createSharedBrowser({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', proxyUrl: proxy.url });
  });
  beforeEach(() => {
    served = [];
    asked = [];
  });
  after(async () => {
    await shared.close();
    await proxy.close();
    for (const s of [site, second]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  /** Loads the page with the filter installed; answers the URLs Chromium paused for the filter. */
  async function load(opts: RequestFilterOptions): Promise<string[]> {
    const context = await (await shared.get()).newContext();
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      const paused: string[] = [];
      cdp.on('Fetch.requestPaused', (event) => paused.push(new URL(event.request.url).pathname));
      await installRequestFilter(cdp, opts);
      await page.goto(`${base}/page`, { waitUntil: 'networkidle' });
      return paused;
    } finally {
      await context.close();
    }
  }
  const paths = () => served.map(([path]) => path);

  it('loads the document, its styles and scripts, and never fonts, images, media, beacons or trackers', async () => {
    const paused = await load({ loadImages: false });
    expect(paths()).to.include.members(['/page', '/site.css', '/app.js', '/lib.js']);
    for (const path of ['/harbour.woff2', '/photo.png', '/clip.mp4', '/beacon']) expect(paths(), path).to.not.include(path);
    // The tracker was refused in the browser: its name never reached the proxy.
    expect(asked).to.not.include('www.google-analytics.com');
    expect(asked).to.include('127.0.0.1');
    // Only what the filter refuses waited for it; the page's own document, style and scripts went straight out.
    expect(paused).to.include.members(['/photo.png', '/clip.mp4', '/analytics.js']);
    expect(paused).to.not.include.members(['/page']);
    for (const path of ['/page', '/site.css', '/app.js', '/lib.js']) expect(paused, path).to.not.include(path);
  });

  it('loads images for a screenshot', async () => {
    await load({ loadImages: true });
    expect(paths()).to.include('/photo.png');
    expect(paths()).to.not.include('/clip.mp4');
  });

  it('adds the caller’s headers to the target’s origin only', async () => {
    await load({ loadImages: false, originHeaders: { origin: base, headers: { 'X-Harbour': 'tide' } } });
    const header = new Map(served.filter(([path]) => path !== '/lib.js').map(([path, value]) => [path, value]));
    expect(header.get('/page')).to.equal('tide');
    expect(header.get('/app.js')).to.equal('tide');
    expect(header.get('/site.css')).to.equal('tide');
    // Another port is another origin.
    expect(served.find(([path]) => path === '/lib.js')?.[1]).to.equal(undefined);
  });

  it('decides by resource type and host, replacing a header the page set with the caller’s', () => {
    const opts: RequestFilterOptions = { loadImages: false, originHeaders: { origin: 'https://example.com', headers: { 'Accept-Language': 'de' } } };
    const decide = (url: string, resourceType: Parameters<typeof decideRequest>[0]['resourceType'], headers: Record<string, string> = {}) => decideRequest({ url, headers, resourceType }, opts);
    expect(decide('https://example.com/a.woff2', 'Font')).to.deep.equal({ kind: 'block' });
    expect(decide('https://cdn.example.net/a.png', 'Image')).to.deep.equal({ kind: 'block' });
    expect(decide('https://stats.g.doubleclick.net/x', 'Script')).to.deep.equal({ kind: 'block' });
    expect(decide('https://cdn.example.net/a.js', 'Script')).to.deep.equal({ kind: 'continue' });
    expect(decide('data:text/plain,hi', 'Fetch')).to.deep.equal({ kind: 'continue' });
    expect(decide('https://example.com/api', 'XHR', { 'accept-language': 'en', accept: '*/*' })).to.deep.equal({
      kind: 'headers',
      headers: [
        { name: 'accept', value: '*/*' },
        { name: 'Accept-Language', value: 'de' },
      ],
    });
    expect(isTrackerHost('stats.g.doubleclick.net')).to.equal(true);
    expect(isTrackerHost('notdoubleclick.net')).to.equal(false);
  });
});
