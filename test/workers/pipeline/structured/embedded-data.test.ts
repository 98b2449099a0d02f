import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import { extractJsonLd, jsonLdEntities } from '../../../../workers/pipeline/structured/json-ld.js';
import { extractMetaTags } from '../../../../workers/pipeline/structured/meta-tags.js';
import { extractMicrodata } from '../../../../workers/pipeline/structured/microdata.js';
import { extractRdfaLite } from '../../../../workers/pipeline/structured/rdfa-lite.js';
import { profilePage } from './profile-pages.js';

const BASE = 'https://shop.example/products/item';

describe('structured/json-ld', () => {
  it('reads every block, including arrays and @graph, and skips blocks that do not parse', () => {
    const doc = parseDocument(`
      <script type="application/ld+json">{"@type": "Organization", "name": "A"}</script>
      <script type="application/ld+json">not json at all</script>
      <script type="APPLICATION/LD+JSON; charset=utf-8">[{"@type": "WebSite"}, {"@type": "Person", "name": "P"}]</script>
      <script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": "Article", "headline": "H"}]}</script>
      <script type="text/javascript">var x = {"@type": "Product"};</script>`);
    const blocks = extractJsonLd(doc);
    expect(blocks).to.have.length(3);
    const entities = jsonLdEntities(blocks);
    expect(entities.map((e) => [e.path, e.types[0], e.topLevel])).to.deep.equal([
      ['json_ld[0]', 'Organization', true],
      ['json_ld[1][0]', 'WebSite', true],
      ['json_ld[1][1]', 'Person', true],
      ['json_ld[2].@graph[0]', 'Article', true],
    ]);
  });

  it('follows @id references across the graph and stops at cycles', () => {
    const doc = parseDocument(profilePage('article-json-ld-graph.html'));
    const article = jsonLdEntities(extractJsonLd(doc)).find((e) => e.types.includes('Article'))!;
    expect(article.value.author).to.deep.include({ '@type': 'Person', name: 'Maya Jensen' });
    const isPartOf = article.value.isPartOf as Record<string, unknown>;
    expect(isPartOf['@type']).to.equal('WebPage');
    // WebPage.isPartOf → WebSite is resolved; nothing recurses forever.
    expect((isPartOf.isPartOf as Record<string, unknown>).name).to.equal('The Urban Ledger');
  });

  it('marks typed values nested in another entity as not top-level', () => {
    const doc = parseDocument(profilePage('product-json-ld.html'));
    const entities = jsonLdEntities(extractJsonLd(doc));
    const offer = entities.find((e) => e.types.includes('Offer'))!;
    expect(offer.topLevel).to.equal(false);
    expect(offer.path).to.equal('json_ld[0].offers');
    expect(entities.find((e) => e.types.includes('Product'))!.topLevel).to.equal(true);
  });

  it('normalises type names given as URLs or prefixed names', () => {
    const doc = parseDocument('<script type="application/ld+json">{"@type": ["http://schema.org/Recipe", "schema:HowTo"]}</script>');
    expect(jsonLdEntities(extractJsonLd(doc))[0]!.types).to.deep.equal(['Recipe', 'HowTo']);
  });
});

describe('structured/microdata', () => {
  it('reads nested items, itemref and the value rules of each element', () => {
    const items = extractMicrodata(parseDocument(profilePage('product-microdata.html')), BASE);
    expect(items).to.have.length(2);
    const product = items[0]!;
    expect(product.type).to.deep.equal(['https://schema.org/Product']);
    expect(product.properties.name).to.deep.equal(['Wanderrucksack Alpin 32']);
    expect(product.properties.image).to.deep.equal(['https://shop.example/bilder/alpin-32.jpg']);
    expect(product.properties.sku).to.deep.equal(['BW-A32-GR']);
    // From the element named by itemref, outside the item's subtree:
    expect(product.properties.description![0]).to.match(/^Leichter Tourenrucksack/);
    expect(product.properties.weight).to.deep.equal(['1.1']);
    const offer = product.properties.offers![0] as { properties: Record<string, unknown[]> };
    expect(offer.properties.price).to.deep.equal(['1299.99']);
    expect(offer.properties.availability).to.deep.equal(['https://schema.org/OutOfStock']);
    expect(offer.properties.priceValidUntil).to.deep.equal(['2025-12-31']);
  });

  it('gives an element several properties when itemprop lists several names', () => {
    const items = extractMicrodata(parseDocument('<div itemscope itemtype="https://schema.org/Thing"><span itemprop="name alternateName">X</span></div>'), BASE);
    expect(items[0]!.properties).to.deep.equal({ name: ['X'], alternateName: ['X'] });
  });

  it('does not loop when itemref points back at the item', () => {
    const html = '<div id="a" itemscope itemtype="https://schema.org/Thing" itemref="a b"><span itemprop="name">N</span></div><p id="b" itemprop="description">D</p>';
    const items = extractMicrodata(parseDocument(html), BASE);
    expect(items[0]!.properties).to.deep.equal({ name: ['N'], description: ['D'] });
  });

  it('reads itemid and time text without a datetime attribute', () => {
    const html = '<article itemscope itemtype="https://schema.org/Event" itemid="/e/1"><time itemprop="startDate">2025-01-02</time><a itemprop="url" href="/e/1">x</a></article>';
    const [item] = extractMicrodata(parseDocument(html), BASE);
    expect(item!.id).to.equal('https://shop.example/e/1');
    expect(item!.properties.startDate).to.deep.equal(['2025-01-02']);
    expect(item!.properties.url).to.deep.equal(['https://shop.example/e/1']);
  });
});

describe('structured/rdfa-lite', () => {
  it('reads typeof/property/resource with vocab and nests typed properties', () => {
    const items = extractRdfaLite(parseDocument(profilePage('rdfa-product.html')), BASE);
    expect(items).to.have.length(1);
    const product = items[0]!;
    expect(product.type).to.deep.equal(['http://schema.org/Product']);
    expect(product.id).to.equal('https://shop.example/products/item#skillet-26');
    expect(product.properties.name).to.deep.equal(['Cast Iron Skillet 26 cm']);
    expect(product.properties.image).to.deep.equal(['https://shop.example/images/skillet-26.jpg']);
    const offer = product.properties.offers![0] as { type: string[]; properties: Record<string, unknown[]> };
    expect(offer.type).to.deep.equal(['http://schema.org/Offer']);
    expect(offer.properties.price).to.deep.equal(['49.00']);
    expect(offer.properties.availability).to.deep.equal(['http://schema.org/InStock']);
  });

  it('keeps prefixed properties under their prefix and expands prefixed types', () => {
    const items = extractRdfaLite(parseDocument(profilePage('rdfa-product.html')), BASE);
    expect(items[0]!.properties['ex:finish']).to.deep.equal(['Matte black']);
    const typed = extractRdfaLite(parseDocument('<div prefix="ex: http://ex.example/ns#" typeof="ex:Gadget"><span property="ex:colour">red</span></div>'), BASE);
    expect(typed[0]!.type).to.deep.equal(['http://ex.example/ns#Gadget']);
  });
});

describe('structured/meta-tags', () => {
  it('separates OpenGraph, Twitter and standard meta, keeping repeated tags as arrays', () => {
    const { opengraph, twitter, meta } = extractMetaTags(parseDocument(profilePage('article-opengraph.html')), 'https://railnotes.example/2024/night-trains');
    expect(opengraph['og:title']).to.equal('Ten years of the night train revival');
    expect(opengraph['og:image']).to.deep.equal(['/media/nightjet.jpg', '/media/sleeper-cabin.jpg']);
    expect(opengraph['article:tag']).to.deep.equal(['rail', 'travel']);
    expect(twitter).to.deep.equal({ 'twitter:card': 'summary_large_image', 'twitter:site': '@railnotes' });
    expect(meta.title).to.equal('Ten years of the night train revival | Rail Notes');
    expect(meta.author).to.equal('Tom Ellis');
    expect(meta.language).to.equal('en');
  });

  it('resolves the canonical link against the page URL', () => {
    const { meta } = extractMetaTags(parseDocument(profilePage('product-json-ld.html')), 'https://northside.example/shop/x?ref=1');
    expect(meta.canonical).to.equal('https://northside.example/shop/aeropress-clear');
    expect(meta.keywords).to.equal('aeropress, coffee maker, brewing');
  });
});
