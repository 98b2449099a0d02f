import { expect } from 'chai';
import { normalizeUrl } from '../../../common/url-normalizer.js';
import { findCaptcha } from '../../../workers/fetching/captcha-detector.js';
import { detectChallenge } from '../../../workers/fetching/challenge-detector.js';
import { elementContents, hasTag, replaceTags } from '../../../workers/html/tags-in-text.js';
import { limitNesting } from '../../../workers/pipeline/nesting-guard.js';
import { cleanText } from '../../../workers/pipeline/structured/json-like-values.js';
import { toIsoDuration } from '../../../workers/pipeline/structured/date-normalization.js';
import { findPrices, parseDecimal } from '../../../workers/pipeline/structured/price-parsing.js';
import { CONTENT, classifyAttributes } from '../../../workers/pipeline/content/boilerplate-patterns.js';
import { parseMarkdownBlocks } from '../../../workers/pipeline/structured/rag/markdown-blocks.js';

/**
 * Text a hostile (or broken) page controls, shaped against the patterns that
 * read it: runs that made a pattern read to the end of the text from every
 * position, seconds of one worker's time on 64 KB. Each check reads such a
 * run and still gives the ordinary answer; the same inputs in their ordinary
 * form are covered by each module's own tests. The runs are long enough that a
 * quadratic pattern takes several seconds (2–16 s each before the rewrite)
 * where a linear one takes milliseconds, so the timeout tells them apart by a
 * wide margin either way. The challenge check reads only the first 64 KB of a
 * body, which bounds its old cost to a fraction of a second: that case checks
 * the answers only.
 */
const RUN = 192 * 1024;
const run = (unit: string, chars = RUN) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

describe('patterns on hostile text', function () {
  this.timeout(1_500);

  it('finds captcha frames and v3 scripts by their key, not by reading a long address again from every mention', () => {
    const frame = (src: string) => `<html><body><h1>Check</h1><iframe src="${src}"></iframe></body></html>`;
    expect(findCaptcha(frame(`https://hcaptcha.com/${run('hcaptcha.com/')}`))).to.equal(null);
    expect(findCaptcha(frame(`https://www.google.com/recaptcha/api2/anchor?${run('/recaptcha/api2/anchor?')}`))).to.equal(null);
    expect(findCaptcha(frame(`https://newassets.hcaptcha.com/captcha/v1/abc/static/hcaptcha.html#frame=checkbox&sitekey=10000000-ffff`))).to.deep.include({ kind: 'hcaptcha', sitekey: '10000000-ffff' });
    expect(findCaptcha(frame('https://www.google.com/recaptcha/api2/anchor?ar=1&k=6LeKEY_x&co=aHR0'))).to.deep.include({ kind: 'recaptcha_v2', sitekey: '6LeKEY_x' });
    const script = (src: string) => `<html><head><script src="${src}"></script></head><body><h1>Check</h1></body></html>`;
    expect(findCaptcha(script(`https://www.google.com/recaptcha/api.js?${run('/recaptcha/api.js?a&')}`))).to.equal(null);
    expect(findCaptcha(script('https://www.google.com/recaptcha/api.js?hl=en&render=6LeV3KEY#render=other'))).to.deep.include({ kind: 'recaptcha_v3', sitekey: '6LeV3KEY' });
    expect(findCaptcha(script('https://www.google.com/recaptcha/api.js?hl=en#&render=6LeV3KEY'))).to.equal(null);
  });

  it('tells challenge pages apart on a body of unclosed frames or repeated vendor names', () => {
    const evidence = (body: string) => ({ headers: {}, body });
    expect(detectChallenge(evidence(`<p>_Incapsula_Resource</p>${run('<iframe ')}`))).to.equal(null);
    expect(detectChallenge(evidence(`<iframe id="main-iframe" src="/_Incapsula_Resource?SWUDNSAI=31&xinfo=1"></iframe>`))).to.equal('Imperva Incapsula');
    expect(detectChallenge(evidence(`<script>${run('window._pxAppId ')}</script>`))).to.equal(null);
    expect(detectChallenge(evidence(`<script>window._pxAppId = 'PXabc'; window._pxJsClientSrc = '/px-captcha.js';</script>`))).to.equal('PerimeterX');
  });

  it('strips trailing slashes from a path made of them', () => {
    expect(normalizeUrl(`https://example.com/${run('/')}x`, undefined, { trailingSlash: 'strip' })).to.match(/x$/);
    expect(normalizeUrl(`https://example.com/a${run('/', 4096)}`, undefined, { trailingSlash: 'strip' })).to.equal('https://example.com/a');
  });

  it('ends raw text at its end tag when the page holds many unclosed end tags', () => {
    const html = `<div><script>${run('</script ')}`;
    expect(limitNesting(html)).to.equal(html);
    const closed = `<script>var a = 1;</script  ><div><div>deep</div></div>`;
    expect(limitNesting(closed, 1)).to.not.contain('<div><div>');
  });

  it('reads tags out of structured text with many unclosed tags', () => {
    expect(replaceTags(`a<b>c${run('<a')}`, ' ')).to.equal(`a c${run('<a')}`);
    expect(replaceTags('<p>one</p><p>two', '|')).to.equal('|one||two');
    expect(hasTag(run('<p '), /<p\b/i)).to.equal(false);
    expect(hasTag('plain <strong>bold</strong>', /<strong\b/i)).to.equal(true);
    expect(cleanText(`Fresh ${run('<b ')}`)).to.match(/^Fresh /);
    expect(cleanText('<p>Fresh &amp; <b>local</b></p>')).to.equal('Fresh & local');
  });

  it('reads the contents of list items as the pattern that defines them does, and in linear time on unclosed ones', () => {
    const pattern = (text: string, names: string[]) => [...text.matchAll(new RegExp(`<(${names.join('|')})[^>]*>([\\s\\S]*?)<\\/\\1>`, 'gi'))].map((m) => m[2]);
    const pieces = ['<li>', '</li>', '<p>', '</p>', '<LI class="x">', '</LI>', '<pre>', '</p >', 'a', '>', '<', ' '];
    // A fixed sequence of pseudo-random strings (a linear congruential generator), so a failure is reproducible.
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % pieces.length;
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from({ length: 1 + (i % 14) }, () => pieces[next()]).join('');
      for (const names of [['li'], ['li', 'p']]) expect([...elementContents(text, names)], `${JSON.stringify(text)} ${names}`).to.deep.equal(pattern(text, names));
    }
    expect([...elementContents(`<li>one</li>${run('<li>')}`, ['li'])]).to.deep.equal(['one']);
    expect([...elementContents(`${run('<p>x')}<li>two</li>`, ['li', 'p'])]).to.deep.equal(['two']);
  });

  it('reads an ATX heading whose text ends in a long run of blanks', () => {
    const heading = parseMarkdownBlocks(`# Tides${run(' ')}x\n`)[0]!;
    expect(heading).to.deep.include({ kind: 'heading', level: 1 });
    expect(parseMarkdownBlocks(`## Tides${run(' ')}\n`)[0]).to.deep.include({ kind: 'heading', level: 2, text: 'Tides' });
    expect(parseMarkdownBlocks('### Tides and times ###  \n')[0]).to.deep.include({ kind: 'heading', level: 3, text: 'Tides and times' });
  });

  it('parses numbers and durations out of long runs of digits and marks', () => {
    expect(parseDecimal(`1${run('.')}x`)).to.equal(1);
    expect(parseDecimal('1.299,50 €')).to.equal(1299.5);
    expect(toIsoDuration(run('1')), 'a bare run of digits is too many minutes to count').to.equal(null);
    expect(toIsoDuration(`${run('1')} h`)).to.equal(null);
    expect(toIsoDuration(`${run('1 ', 4096)}x`)).to.equal(null);
    expect(toIsoDuration('1 h 30 min')).to.equal('PT1H30M');
  });

  it('finds prices beside long runs of digits and of groups of thousands', () => {
    expect(findPrices(`${run('1')}x`)).to.deep.equal([]);
    expect(findPrices(run(' 111')).length).to.equal(0);
    const prices = findPrices(`Was ${run(',111', 4096)} now $1,299.99`);
    expect(prices.at(-1)).to.deep.include({ amount: 1299.99, currency: 'USD' });
  });

  it('reads the words of a very long class name by its last one', () => {
    expect(classifyAttributes({ class: run('share_article_') }) & CONTENT).to.equal(0);
    expect(classifyAttributes({ class: `${run('x-y ', 4096)}entry-content` }) & CONTENT).to.equal(CONTENT);
    expect(classifyAttributes({ class: 'entry-content' }) & CONTENT).to.equal(CONTENT);
    expect(classifyAttributes({ class: 'content-rating' }) & CONTENT).to.equal(0);
  });

  it('reads headings and fences cut by a line separator after a long run', () => {
    expect(parseMarkdownBlocks(`#${run(' ')}\u2028x\n`).some((b) => b.kind === 'heading')).to.equal(false);
    expect(parseMarkdownBlocks(`${run('`')}\u2028x\n`).some((b) => b.kind === 'code')).to.equal(false);
    expect(parseMarkdownBlocks('```ts\nconst a = 1;\n```\n')[0]).to.deep.include({ kind: 'code' });
  });

  it('reads a Markdown table delimiter line of blanks', () => {
    const blocks = parseMarkdownBlocks(`| a | b |\n|---|---${run(' ')}x\n`);
    expect(blocks.some((b) => b.kind === 'table')).to.equal(false);
    expect(parseMarkdownBlocks('| a | b |\n|---|---|   \n| 1 | 2 |\n').some((b) => b.kind === 'table')).to.equal(true);
  });
});
