import { expect } from 'chai';
import { TrawlError } from '../../../../common/errors.js';
import {
  MAX_EXTRACTION_SCHEMA_BYTES,
  applyProfile,
  extractStructuredData,
  matchSchema,
  profileForSchema,
  validateExtractionSchema,
  type JsonObject,
} from '../../../../workers/pipeline/structured/index.js';
import { profilePage } from './profile-pages.js';

function match(file: string, schema: JsonObject, url = `https://site.example/${file}`) {
  return matchSchema(schema, extractStructuredData(profilePage(file), url));
}

const s = (type: string, extra: JsonObject = {}): JsonObject => ({ type, ...extra });

describe('structured/schema matching', () => {
  describe('profile choice for auto', () => {
    const bare = '<html><body><h1>Blue kettle</h1><p>Price: £39.95</p><p>A kettle that boils fast.</p></body></html>';

    it('reads a bare page as the profile the schema names, finding a labelled price', () => {
      const data = extractStructuredData(bare, 'https://shop.example/kettle');
      expect(profileForSchema({ type: 'object', properties: { title: s('string'), price: s('number') } }, data)).to.equal('product');
      const { filtered_content, evidence } = matchSchema({ type: 'object', properties: { title: s('string'), price: s('number'), currency: s('string') } }, data);
      expect(filtered_content).to.deep.equal({ title: 'Blue kettle', price: 39.95, currency: 'GBP' });
      expect(evidence['price']).to.include({ source: 'heuristic' });
    });

    it('keeps the profile structured data declares, whatever the schema names', () => {
      const data = extractStructuredData(profilePage('recipe.html'), 'https://site.example/recipe');
      expect(profileForSchema({ type: 'object', properties: { price: s('number'), brand: s('string') } }, data)).to.equal('recipe');
    });

    it('keeps the detected profile when the schema names no profile field', () => {
      const data = extractStructuredData(bare, 'https://shop.example/kettle');
      expect(profileForSchema({ type: 'object', properties: { colour: s('string') } }, data)).to.equal('article');
    });
  });

  describe('names and aliases', () => {
    it('matches names case-, underscore- and camel-insensitively and applies the documented aliases', () => {
      const { filtered_content } = match('product-json-ld.html', {
        type: 'object',
        properties: {
          Title: s('string'),
          in_stock: s('boolean'),
          SKU: s('string'),
          image_urls: s('array', { items: s('string') }),
          productId: s('string'),
          'review-count': s('integer'),
        },
      });
      expect(filtered_content).to.deep.equal({
        Title: 'Aeropress Clear Coffee Maker',
        in_stock: true,
        SKU: 'AP-CLR-01',
        image_urls: ['https://cdn.northside.example/img/aeropress-clear-1.jpg', 'https://cdn.northside.example/img/aeropress-clear-2.jpg'],
        productId: 'AP-CLR-01',
        'review-count': 1204,
      });
    });

    it('maps title to headline on articles and date/author aliases to their schema.org properties', () => {
      const { filtered_content } = match('article-json-ld-graph.html', {
        properties: { title: s('string'), creator: s('string'), date: s('string', { format: 'date' }), last_updated: s('string'), publisher: s('string') },
      });
      expect(filtered_content).to.deep.equal({
        title: 'How Cities Are Rethinking Street Trees',
        creator: 'Maya Jensen',
        date: '2024-04-02',
        last_updated: '2024-04-03T10:00:00+00:00',
        publisher: 'The Urban Ledger',
      });
    });

    it('returns null for properties nothing on the page matches', () => {
      const { filtered_content, evidence } = match('product-json-ld.html', { properties: { warranty_years: s('integer'), colour: s('string') } });
      expect(filtered_content).to.deep.equal({ warranty_years: null, colour: null });
      expect(evidence).to.deep.equal({});
    });
  });

  describe('nesting and arrays', () => {
    it('fills nested objects from the matching object in the data', () => {
      const { filtered_content, evidence } = match('article-json-ld-graph.html', {
        properties: { author: s('object', { properties: { name: s('string'), url: s('string') } }) },
      });
      expect(filtered_content).to.deep.equal({ author: { name: 'Maya Jensen', url: 'https://urbanledger.example/author/maya/' } });
      expect(evidence['author.name']).to.deep.equal({ source: 'json_ld', path: 'json_ld[0].@graph[1].author.name', raw: 'Maya Jensen' });
    });

    it('fills a wrapper object named after an entity type from that entity', () => {
      const { filtered_content, evidence } = match('product-json-ld.html', {
        properties: { product: s('object', { properties: { name: s('string'), price: s('number'), currency: s('string'), available: s('boolean') } }) },
      });
      expect(filtered_content).to.deep.equal({ product: { name: 'Aeropress Clear Coffee Maker', price: 39.95, currency: 'GBP', available: true } });
      expect(evidence['product.price']!.path).to.equal('json_ld[0].offers.price');
    });

    it('fills arrays of objects element by element, with evidence per element', () => {
      const { filtered_content, evidence } = match('event.html', {
        properties: { offers: s('array', { items: s('object', { properties: { name: s('string'), price: s('number'), currency: s('string') } }) }) },
      });
      expect(filtered_content).to.deep.equal({
        offers: [
          { name: 'Standard', price: 22.5, currency: 'GBP' },
          { name: 'Concession', price: 18, currency: 'GBP' },
        ],
      });
      expect(evidence['offers[1].price']).to.deep.equal({ source: 'json_ld', path: 'json_ld[0].offers[1].price', raw: '18.00' });
    });

    it('collects entities of the type a collection name stands for', () => {
      const html = `<script type="application/ld+json">{"@type": "ItemList", "itemListElement": [
        {"@type": "ListItem", "item": {"@type": "Product", "name": "A", "offers": {"price": "10"}}},
        {"@type": "ListItem", "item": {"@type": "Product", "name": "B", "offers": {"price": "12.5"}}}]}</script>`;
      const { filtered_content } = matchSchema(
        { properties: { products: s('array', { items: s('object', { properties: { name: s('string'), price: s('number') } }) }) } },
        extractStructuredData(html, 'https://x.example/'),
      );
      expect(filtered_content).to.deep.equal({ products: [{ name: 'A', price: 10 }, { name: 'B', price: 12.5 }] });
    });

    it('maps FAQ questions to any question/answer property names', () => {
      const { filtered_content } = match('faq-json-ld.html', {
        properties: { faqs: s('array', { items: s('object', { properties: { q: s('string'), a: s('string') } }) }) },
      });
      const faqs = filtered_content.faqs as Array<{ q: string; a: string }>;
      expect(faqs).to.have.length(3);
      expect(faqs[0]).to.deep.equal({ q: 'How long does delivery take?', a: 'Orders ship within 2 working days and arrive in 3–5 days.' });
    });

    it('puts plain strings into the text property of object items', () => {
      const { filtered_content } = match('recipe.html', {
        properties: { ingredients: s('array', { items: s('object', { properties: { text: s('string'), quantity: s('number') } }) }) },
      });
      expect((filtered_content.ingredients as unknown[])[0]).to.deep.equal({ text: '2 tbsp vegetable oil', quantity: null });
    });

    it('does not turn a single URL into a list of link objects', () => {
      const { filtered_content } = match('article-json-ld-graph.html', {
        properties: { links: s('array', { items: s('object', { properties: { text: s('string'), href: s('string') } }) }) },
      });
      const links = filtered_content.links as Array<{ text: string; href: string }>;
      expect(links.length).to.be.greaterThan(3);
      expect(links).to.deep.include({ text: 'new heat studies', href: 'https://example.org/heat-study' });
    });

    it('resolves local $ref definitions and picks the non-null branch of anyOf', () => {
      const { filtered_content } = match('job-posting.html', {
        $defs: { money: { type: 'number' } },
        properties: { salary_min: { $ref: '#/$defs/money' }, company: { anyOf: [{ type: 'null' }, { type: 'string' }] } },
      });
      expect(filtered_content).to.deep.equal({ salary_min: 70000, company: 'Fernwood Labs' });
    });
  });

  it('stops on a schema that refers to itself', () => {
    const schema = { properties: { name: { type: 'string' }, parent: { $ref: '#' } } };
    validateExtractionSchema(schema);
    const { filtered_content } = match('product-json-ld.html', schema);
    expect(filtered_content.name).to.equal('Aeropress Clear Coffee Maker');
    let depth = 0;
    for (let node = filtered_content; node && typeof node === 'object'; node = node.parent as JsonObject) depth++;
    expect(depth).to.be.within(2, 12);
  });

  describe('coercion', () => {
    const data = () =>
      extractStructuredData(
        `<html lang="en"><head><script type="application/ld+json">{"@type": "Product", "name": "Lamp",
          "offers": {"price": "1.299,99 €", "availability": "http://schema.org/OutOfStock"},
          "releaseDate": "March 5, 2024", "weight": "2.5 kg", "aggregateRating": {"ratingValue": "4.6", "reviewCount": "1,024 reviews"}}</script></head>
          <body><h1>Lamp</h1><p class="stock">In stock</p></body></html>`,
        'https://x.example/lamp',
      );

    it('turns price strings in any grouping into numbers, and counts into integers', () => {
      const { filtered_content } = matchSchema({ properties: { price: s('number'), rating: s('number'), reviews_count: s('integer'), weight: s('number') } }, data());
      expect(filtered_content).to.deep.equal({ price: 1299.99, rating: 4.6, reviews_count: 1024, weight: 2.5 });
    });

    it('turns schema.org availability URLs and stock text into booleans', () => {
      expect(matchSchema({ properties: { in_stock: s('boolean') } }, data()).filtered_content.in_stock).to.equal(false);
      const plain = extractStructuredData(profilePage('product-plain.html'), 'https://x.example/');
      expect(matchSchema({ properties: { in_stock: s('boolean') } }, plain).filtered_content.in_stock).to.equal(true);
    });

    it('normalises dates to ISO 8601 by format or by property name', () => {
      const { filtered_content } = matchSchema(
        { properties: { release_date: s('string'), releaseDate: s('string', { format: 'date' }), name: s('string') } },
        data(),
      );
      expect(filtered_content).to.deep.equal({ release_date: '2024-03-05', releaseDate: '2024-03-05', name: 'Lamp' });
    });

    it('matches enum values regardless of case, separators and schema.org URLs', () => {
      const { filtered_content } = matchSchema({ properties: { availability: s('string', { enum: ['in_stock', 'out_of_stock'] }) } }, data());
      expect(filtered_content.availability).to.equal('out_of_stock');
    });

    it('turns numbers into strings and objects into their names', () => {
      const { filtered_content } = match('product-json-ld.html', { properties: { price: s('string'), brand: s('string'), seller: s('string') } });
      expect(filtered_content).to.deep.equal({ price: '39.95', brand: 'AeroPress', seller: 'Northside Roasters' });
    });

    it('makes relative URLs absolute for URL-named string properties', () => {
      const { filtered_content } = match('product-microdata.html', { properties: { image_url: s('string') } }, 'https://shop.example/p/1');
      expect(filtered_content.image_url).to.equal('https://shop.example/bilder/alpin-32.jpg');
    });
  });

  describe('evidence', () => {
    it('names the source kind, the path or selector, and the raw value of every filled field', () => {
      const { evidence } = match('article-opengraph.html', {
        properties: { title: s('string'), author: s('string'), description: s('string'), site_name: s('string'), h1: s('string') },
      });
      expect(evidence.title).to.deep.equal({ source: 'opengraph', selector: 'meta[property="og:title"]', raw: 'Ten years of the night train revival' });
      expect(evidence.author).to.deep.equal({ source: 'meta', selector: 'meta[name="author"]', raw: 'Tom Ellis' });
      expect(evidence.site_name!.selector).to.equal('meta[property="og:site_name"]');
      expect(evidence.h1!.source).to.equal('heuristic');
      expect(evidence.h1!.raw).to.equal('Ten years of the night train revival');
    });

    it('reuses a profile result passed in instead of recomputing it', () => {
      const data = extractStructuredData(profilePage('recipe.html'), 'https://x.example/');
      const profileResult = applyProfile('recipe', data);
      const { filtered_content } = matchSchema({ properties: { cook_time: s('string'), servings: s('integer') } }, data, { profileResult });
      expect(filtered_content).to.deep.equal({ cook_time: 'PT25M', servings: 4 });
    });
  });
});

describe('structured/extraction schema validation', () => {
  function failure(schema: unknown): TrawlError {
    try {
      validateExtractionSchema(schema);
    } catch (e) {
      expect(e).to.be.instanceOf(TrawlError);
      return e as TrawlError;
    }
    expect.fail('expected a validation error');
  }

  it('accepts an ordinary object schema', () => {
    expect(() => validateExtractionSchema({ type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } })).not.to.throw();
  });

  it('refuses schemas over 64 KB with VALIDATION_ERROR (HTTP 400) and the sizes', () => {
    const properties: JsonObject = {};
    for (let i = 0; i < 2000; i++) properties[`field_number_${i}`] = { type: 'string', description: 'x'.repeat(20) };
    const err = failure({ type: 'object', properties });
    expect(err.code).to.equal('VALIDATION_ERROR');
    expect(err.httpStatus).to.equal(400);
    expect(err.details).to.include({ field: 'extraction_schema', limit_bytes: MAX_EXTRACTION_SCHEMA_BYTES });
    expect(err.details!.size_bytes as number).to.be.greaterThan(MAX_EXTRACTION_SCHEMA_BYTES);
  });

  it('accepts a schema of exactly the limit and measures UTF-8 bytes, not characters', () => {
    const base = { type: 'object', properties: { a: { type: 'string', description: '' } } };
    const pad = MAX_EXTRACTION_SCHEMA_BYTES - JSON.stringify(base).length;
    expect(() => validateExtractionSchema({ type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(pad) } } })).not.to.throw();
    const multiByte = { type: 'object', properties: { a: { type: 'string', description: 'é'.repeat(pad) } } };
    expect(failure(multiByte).details!.field).to.equal('extraction_schema');
  });

  it('points at the offending property for unknown types and broken refs', () => {
    expect(failure({ properties: { price: { type: 'money' } } }).details!.field).to.equal('extraction_schema.properties.price.type');
    expect(failure({ properties: { a: { $ref: '#/$defs/missing' } } }).details!.field).to.equal('extraction_schema.properties.a.$ref');
    expect(failure({ properties: { a: { type: 'array', items: [{ type: 'string' }] } } }).details!.field).to.equal('extraction_schema.properties.a.items');
  });

  it('refuses non-objects and schemas without properties', () => {
    expect(failure([]).details!.field).to.equal('extraction_schema');
    expect(failure({ type: 'string' }).details!.field).to.equal('extraction_schema.type');
    expect(failure({ type: 'object' }).details!.field).to.equal('extraction_schema.properties');
  });
});
