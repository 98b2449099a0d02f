import { expect } from 'chai';
import { canonicalJson, changeMaterial, normaliseContent, sha256Hex } from '../../../control-plane/crawl/change-material.js';

describe('change material of a crawled page', () => {
  it('normalises line endings, trailing and inner whitespace and blank-line runs, keeping indentation', () => {
    const messy = '\n\n# Title  \r\n\r\n\r\nSome   text\there \n   - nested  item\n\n\n';
    expect(normaliseContent(messy)).to.equal('# Title\n\nSome text here\n   - nested item');
  });

  it('hashes contents that differ only in trivial whitespace alike, and different words differently', () => {
    const a = changeMaterial({ content: '# Home\n\nWelcome to the site.\n', title: 'Home', metadata: {} });
    const b = changeMaterial({ content: '# Home  \r\n\r\n\r\nWelcome  to the site.', title: 'Home', metadata: {} });
    const c = changeMaterial({ content: '# Home\n\nWelcome to the new site.', title: 'Home', metadata: {} });
    expect(a.contentHash).to.equal(b.contentHash);
    expect(a.contentHash).to.equal(sha256Hex('# Home\n\nWelcome to the site.'));
    expect(c.contentHash).to.not.equal(a.contentHash);
  });

  it('reads the markdown format first when the content holds several formats, then text, then html', () => {
    expect(changeMaterial({ content: { text: 'plain', markdown: '**md**' }, title: '', metadata: {} }).content).to.equal('**md**');
    expect(changeMaterial({ content: { html: '<p>x</p>', text: 'plain' }, title: '', metadata: {} }).content).to.equal('plain');
    expect(changeMaterial({ content: { json: { b: 1, a: 2 } }, title: '', metadata: {} }).content).to.equal('{"json":{"a":2,"b":1}}');
  });

  it('takes the schema output as fields, else the json format fields, else the title and metadata', () => {
    const filtered = changeMaterial({ content: 'x', title: 'T', metadata: {}, filteredContent: { price: 10 } });
    expect(filtered.fields).to.deep.equal({ price: 10 });
    const profile = changeMaterial({ content: { json: { type: 'product', fields: { name: 'Lamp' } } }, title: 'T', metadata: {} });
    expect(profile.fields).to.deep.equal({ name: 'Lamp' });
    const meta = changeMaterial({ content: 'x', title: 'T', metadata: { description: 'd' } });
    expect(meta.fields).to.deep.equal({ title: 'T', description: 'd' });
    expect(meta.fieldsHash).to.equal(sha256Hex(canonicalJson({ description: 'd', title: 'T' })));
  });

  it('serialises objects with sorted keys at every level', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).to.equal('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
