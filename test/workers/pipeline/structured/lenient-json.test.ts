import { expect } from 'chai';
import { parseLenientJson } from '../../../../workers/pipeline/structured/lenient-json.js';

describe('structured/lenient-json', () => {
  it('parses strict JSON unchanged', () => {
    expect(parseLenientJson('{"a": [1, 2, {"b": "c"}]}')).to.deep.equal({ a: [1, 2, { b: 'c' }] });
  });

  it('drops trailing commas and comments outside strings', () => {
    const text = `{
      // a line comment
      "name": "x // not a comment",
      /* a block comment */
      "list": [1, 2, 3,],
    }`;
    expect(parseLenientJson(text)).to.deep.equal({ name: 'x // not a comment', list: [1, 2, 3] });
  });

  it('decodes HTML-escaped JSON', () => {
    expect(parseLenientJson('{&quot;@type&quot;: &quot;Product&quot;, &quot;name&quot;: &quot;A &amp; B&quot;}')).to.deep.equal({
      '@type': 'Product',
      name: 'A & B',
    });
  });

  it('escapes raw newlines and tabs inside strings', () => {
    expect(parseLenientJson('{"description": "line one\nline\ttwo"}')).to.deep.equal({ description: 'line one\nline\ttwo' });
  });

  it('accepts single-quoted strings', () => {
    expect(parseLenientJson("{\"headline\": 'It\\'s here', \"image\": ['a.jpg', ],}")).to.deep.equal({ headline: "It's here", image: ['a.jpg'] });
  });

  it('unwraps CDATA and HTML comment wrappers', () => {
    expect(parseLenientJson('//<![CDATA[\n{"a": 1}\n//]]>')).to.deep.equal({ a: 1 });
    expect(parseLenientJson('<!-- {"a": 2} -->')).to.deep.equal({ a: 2 });
  });

  it('reads objects written back to back as an array', () => {
    expect(parseLenientJson('{"a": 1}\n{"b": 2}')).to.deep.equal([{ a: 1 }, { b: 2 }]);
  });

  it('returns undefined for text that is not JSON', () => {
    expect(parseLenientJson('window.dataLayer = [];')).to.equal(undefined);
    expect(parseLenientJson('   ')).to.equal(undefined);
  });
});
