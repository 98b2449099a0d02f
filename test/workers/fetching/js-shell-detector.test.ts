import { expect } from 'chai';
import { isJavaScriptShell } from '../../../workers/fetching/js-shell-detector.js';
import { cutInto } from '../../fixtures/text-pieces.js';

const doc = (body: string) => `<!DOCTYPE html><html><head><title>App</title><script src="/bundle.js"></script></head><body>${body}</body></html>`;
const prose = 'The harbour committee met on Tuesday to discuss the dredging of the inner basin and the new pontoons. '.repeat(4);

describe('JavaScript shell detection', () => {
  const shells: Array<[string, string]> = [
    ['an empty React mount point', doc('<div id="root"></div>')],
    ['an empty Next.js mount point with a loading line', doc('<div id="__next"></div><p>Loading</p>')],
    ['a page that says it needs JavaScript', doc('<noscript>Please enable JavaScript to continue.</noscript><div class="x"></div>')],
    ['a page with scripts and almost no text', doc('<main><span>Menu</span></main><script>boot()</script>')],
  ];
  for (const [what, html] of shells) {
    it(`recognises ${what}, whole and cut into pieces`, () => {
      expect(isJavaScriptShell(html)).to.equal(true);
      for (const size of [3, 40, 1000]) expect(isJavaScriptShell(cutInto(html, size)), `in pieces of ${size}`).to.equal(true);
    });
  }

  const pages: Array<[string, string]> = [
    ['an article with scripts', doc(`<div id="root"><article><p>${prose}</p></article></div>`)],
    ['a server-rendered app whose mount point is filled', doc(`<div id="app"><h1>News</h1><p>${prose}</p></div><noscript>enable JavaScript for comments</noscript>`)],
    ['a short page without any script', '<html><body><p>Gone fishing.</p></body></html>'],
  ];
  for (const [what, html] of pages) {
    it(`leaves ${what} alone, whole and cut into pieces`, () => {
      expect(isJavaScriptShell(html)).to.equal(false);
      for (const size of [3, 40, 1000]) expect(isJavaScriptShell(cutInto(html, size)), `in pieces of ${size}`).to.equal(false);
    });
  }
});
