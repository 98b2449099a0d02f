import { expect } from 'chai';
import { Parser, Tokenizer, type Handler } from 'htmlparser2';
import { RunSkippingTokenizer } from '../../../workers/html/run-skipping-tokenizer.js';
import { extractionPageFiles, readExtractionPage } from '../../fixtures/extraction-pages.js';

const CALLBACKS = [
  'onopentagname', 'onattribute', 'onopentag', 'ontext', 'onclosetag', 'oncomment', 'oncommentend',
  'oncdatastart', 'oncdataend', 'onprocessinginstruction', 'onend',
] as const;

/** Every event the parser gives, with its arguments and the parser's start and end indices at that moment. */
function events(html: string, tokenizer: typeof Tokenizer, options: { decodeEntities: boolean; chunks: number; xmlMode?: boolean }): string[] {
  const out: string[] = [];
  let parser: Parser | undefined;
  const handler: Partial<Handler> = {};
  for (const name of CALLBACKS) {
    (handler as Record<string, unknown>)[name] = (...args: unknown[]) => out.push(`${name} ${JSON.stringify(args)} ${parser!.startIndex}-${parser!.endIndex}`);
  }
  parser = new Parser(handler, {
    decodeEntities: options.decodeEntities,
    lowerCaseTags: true,
    lowerCaseAttributeNames: true,
    xmlMode: options.xmlMode ?? false,
    Tokenizer: tokenizer,
  });
  const step = Math.ceil(html.length / options.chunks) || 1;
  for (let at = 0; at < html.length; at += step) parser.write(html.slice(at, at + step));
  parser.end();
  return out;
}

function expectSameEvents(html: string, options: { decodeEntities: boolean; chunks: number; xmlMode?: boolean }): void {
  const stock = events(html, Tokenizer, options);
  const skipping = events(html, RunSkippingTokenizer, options);
  if (stock.length !== skipping.length || stock.some((e, i) => e !== skipping[i])) {
    const at = stock.findIndex((e, i) => e !== skipping[i]);
    expect(skipping[at], `event ${at} of ${JSON.stringify(html.slice(0, 60))} (${JSON.stringify(options)})`).to.equal(stock[at]);
  }
}

/** Markup where a run ends at an entity, a quote, a chunk's end or the document's end, in every state the tokenizer skips in. */
const AWKWARD = [
  'a &amp b', 'x&y', 'text &', 'text &#', '&#x41;&#65;&unknown; & &amp', 'a&ampb&lt;c',
  '<a href="x&amp;y&z" title=\'q&lt;\' data=u&amp;v>t</a>', '<a b="c', "<a b='c&", '<a b=c&amp', '<a b=', '<a b', '<div', '<p>x<',
  '<!-- c --> <!--x', '<!---->', '<!-- a -- b --->', '<![CDATA[x]]>', '<!DOCTYPE html>', '<?xml version="1.0"?>', '<!x', '<?x',
  '<script>a</scr b<\\/script></script>', '<script>if (a<b && c>d) {}</script>', '<style>a<b{}</style>', '<title>a &amp; b</title>',
  '<textarea>&lt;x</textarea>', '<xmp>&lt;</xmp>', '<svg><path d="M0 0"/><foreignObject><p>x</p></foreignObject></svg>',
  '</ p>', '</p >', '</>', 'x</>y', '<br/>', '<br />', '<img src=a.png alt="b">', '<a\tb\nc\fd\re>', '<A HREF=X>Y</A >', '<<a>>',
  '<a b c d=e f>', '<a b/c>', '<a bb/cc>', '<img aa/bb=c/>', '<a bb/>', '<abc/>', '<abc\tx>', '</abc\ndef>', '<a b = "c" d=\'e\'>', '<input value="a"b="c">', '<p attr=">">gt</p>', '<div class="a\nb">\n\n  spaced  \n</div>',
  'caf\u00e9 \u{1F600} <b>\u00fc</b>', '', '<', '&', '<a', '</', '</a', '<!', '<!-', '<!--',
];

describe('run-skipping tokenizer', () => {
  it('is in use: the internals it relies on are present in the pinned htmlparser2', () => {
    expect(RunSkippingTokenizer).to.not.equal(Tokenizer);
  });

  it('gives the stock tokenizer\'s events and indices on awkward markup, whole and cut into chunks, with and without entity decoding', () => {
    for (const html of AWKWARD) {
      for (const chunks of [1, 2, 3, 7]) {
        expectSameEvents(html, { decodeEntities: true, chunks });
        expectSameEvents(html, { decodeEntities: false, chunks });
      }
      expectSameEvents(html, { decodeEntities: true, chunks: 1, xmlMode: true });
    }
  });

  it('gives the stock tokenizer\'s events and indices on every real page of the shared set (every fourth also in 16 KB chunks)', function () {
    this.timeout(120_000);
    const files = extractionPageFiles();
    expect(files.length).to.be.greaterThan(400);
    files.forEach((file, i) => {
      const html = readExtractionPage(file);
      expectSameEvents(html, { decodeEntities: true, chunks: 1 });
      if (i % 4 === 0) expectSameEvents(html, { decodeEntities: true, chunks: Math.max(1, Math.ceil(html.length / 16384)) });
    });
  });
});
