import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../../workers/fetching/chromium.js';
import { readPage, scrollToEnd } from '../../../workers/fetching/page-tidying.js';

const FEED_ITEMS = 4;

/** Pages served to the browser: a short one with a consent banner, an infinite feed, and a list that grows on scroll from memory. */
const PAGES: Record<string, string> = {
  '/banner': `<!DOCTYPE html><html><body style="overflow:hidden"><p>The harbour opens at dawn.</p>
<div style="position:fixed;bottom:0">We use cookies to improve the harbour site. <button>Accept</button></div></body></html>`,
  '/feed': `<!DOCTYPE html><html><body><div id="feed"><p style="height:1500px">Feed item 1</p></div>
<script>let next = 2, busy = false;
addEventListener('scroll', async () => {
  if (busy || next > ${FEED_ITEMS} || innerHeight + scrollY < document.documentElement.scrollHeight - 50) return;
  busy = true;
  const item = await (await fetch('/item?n=' + next)).text();
  const p = document.createElement('p'); p.style.height = '1500px'; p.textContent = item;
  document.getElementById('feed').append(p); next++; busy = false;
});</script></body></html>`,
  // A list that renders its next rows from memory when scrolled to its end: it grows without a request.
  '/rows': `<!DOCTYPE html><html><body><div id="rows"><p style="height:1500px">Row 1</p></div>
<script>let next = 2;
addEventListener('scroll', () => {
  if (next > ${FEED_ITEMS} || innerHeight + scrollY < document.documentElement.scrollHeight - 50) return;
  const p = document.createElement('p'); p.style.height = '1500px'; p.textContent = 'Row ' + next++;
  document.getElementById('rows').append(p);
});</script></body></html>`,
};

describe('reading a loaded page', function () {
  this.timeout(60_000);
  let server: http.Server;
  let base: string;
  let browser: Browser;

  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/item') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`Feed item ${url.searchParams.get('n')}`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGES[url.pathname] ?? '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  async function withPage<T>(path: string, use: (page: Page) => Promise<T>): Promise<T> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}${path}`);
      return await use(page);
    } finally {
      await context.close();
    }
  }
  const deadline = () => Date.now() + 30_000;

  it('answers the doctype and document of a short page, with its cookie banner and scroll lock removed when asked', async () => {
    const tidied = await withPage('/banner', (page) => readPage(page, { scroll: undefined, removeBanners: true, deadlineMs: deadline() }));
    expect(tidied.startsWith('<!DOCTYPE html><html>')).to.equal(true);
    expect(tidied).to.contain('The harbour opens at dawn.').and.not.contain('We use cookies');
    expect(tidied).to.contain('overflow: visible');
    const kept = await withPage('/banner', (page) => readPage(page, { scroll: undefined, removeBanners: false, deadlineMs: deadline() }));
    expect(kept).to.contain('We use cookies');
  });

  for (const scroll of [undefined, true]) {
    it(`scrolls an infinite feed to its end when scrolling is ${scroll === undefined ? 'left to the page (auto)' : 'asked for'}`, async () => {
      const html = await withPage('/feed', (page) => readPage(page, { scroll, removeBanners: true, deadlineMs: deadline() }));
      for (let n = 1; n <= FEED_ITEMS; n++) expect(html).to.contain(`Feed item ${n}<`);
    });
  }

  it('never scrolls with scroll false', async () => {
    const html = await withPage('/feed', (page) => readPage(page, { scroll: false, removeBanners: true, deadlineMs: deadline() }));
    expect(html).to.contain('Feed item 1<').and.not.contain('Feed item 2<');
  });

  it('keeps scrolling a page that grows on scroll without a request, and stops once it no longer grows', async () => {
    const html = await withPage('/rows', async (page) => {
      // One round per added row, and one more that finds nothing new.
      expect(await scrollToEnd(page, deadline(), true)).to.equal(FEED_ITEMS);
      return page.content();
    });
    for (let n = 1; n <= FEED_ITEMS; n++) expect(html).to.contain(`Row ${n}<`);
  });
});
