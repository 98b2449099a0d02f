import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import {
  PROFILE_FIELDS,
  applyProfile,
  buildJsonOutput,
  detectProfile,
  extractStructuredData,
  type StructuredData,
} from '../../../../workers/pipeline/structured/index.js';
import { queryOne } from '../../../../workers/pipeline/structured/dom-query.js';
import { profilePage } from './profile-pages.js';

function page(name: string, url = `https://site.example/pages/${name}`): StructuredData {
  return extractStructuredData(profilePage(name), url);
}

describe('structured/profiles', () => {
  describe('field sets', () => {
    it('every profile returns exactly its documented fields, null when unknown', () => {
      const expected: Record<string, string[]> = {
        product: ['name', 'price', 'currency', 'images', 'rating', 'availability', 'brand', 'description'],
        article: ['title', 'author', 'published_date', 'content', 'summary', 'images'],
        job_posting: ['title', 'company', 'location', 'salary', 'description', 'requirements'],
        faq: ['questions'],
        recipe: ['name', 'ingredients', 'instructions', 'cook_time', 'servings', 'nutrition'],
        event: ['name', 'date', 'location', 'description', 'organizer', 'price'],
      };
      const empty = extractStructuredData('<html><body><p>Nothing here.</p></body></html>', 'https://e.example/');
      for (const [name, fields] of Object.entries(expected)) {
        expect(PROFILE_FIELDS[name as keyof typeof PROFILE_FIELDS]).to.deep.equal(fields);
        const result = applyProfile(name as keyof typeof PROFILE_FIELDS, empty);
        expect(Object.keys(result.fields), name).to.deep.equal(fields);
        expect(Object.values(result.fields).every((v) => v === null), name).to.equal(true);
      }
    });
  });

  describe('product', () => {
    it('reads a JSON-LD Product with Offer and AggregateRating', () => {
      const result = applyProfile('product', page('product-json-ld.html'));
      expect(result.fields).to.deep.equal({
        name: 'Aeropress Clear Coffee Maker',
        price: 39.95,
        currency: 'GBP',
        images: ['https://cdn.northside.example/img/aeropress-clear-1.jpg', 'https://cdn.northside.example/img/aeropress-clear-2.jpg'],
        rating: { value: 4.8, count: 1204, best: 5 },
        availability: 'in_stock',
        brand: 'AeroPress',
        description: 'The Aeropress Clear brews smooth, rich coffee in about a minute. Made from tough, shatterproof Tritan™ plastic.',
      });
      expect(result.evidence.price).to.deep.equal({ source: 'json_ld', path: 'json_ld[0].offers.price', raw: '39.95' });
      expect(result.evidence.availability!.raw).to.equal('https://schema.org/InStock');
    });

    it('reads a microdata-only product without leaking the related product', () => {
      const result = applyProfile('product', page('product-microdata.html'));
      expect(result.fields.name).to.equal('Wanderrucksack Alpin 32');
      expect(result.fields.price).to.equal(1299.99);
      expect(result.fields.currency).to.equal('EUR');
      expect(result.fields.availability).to.equal('out_of_stock');
      expect(result.fields.brand).to.equal('Bergwelt');
      expect(result.fields.rating).to.deep.equal({ value: 4.6, count: 87, best: 5 });
      expect(result.fields.images).to.deep.equal(['https://site.example/bilder/alpin-32.jpg']);
      expect(result.evidence.price!.source).to.equal('microdata');
      expect(result.evidence.price!.path).to.equal('microdata[0].offers.price');
    });

    it('reads an RDFa Lite product', () => {
      const result = applyProfile('product', page('rdfa-product.html'));
      expect(result.fields).to.deep.include({ name: 'Cast Iron Skillet 26 cm', price: 49, currency: 'USD', availability: 'in_stock', brand: 'Hearthware' });
      expect(result.fields.rating).to.deep.equal({ value: 4.4, count: 59, best: null });
      expect(result.evidence.name!.source).to.equal('rdfa');
    });

    it('falls back to page heuristics: sale price next to the cart button, not the struck-out one', () => {
      const data = page('product-plain.html');
      const result = applyProfile('product', data);
      expect(result.fields).to.deep.include({
        name: 'Trail Runner 4 Waterproof Shoe',
        price: 119.2,
        currency: 'USD',
        availability: 'limited_availability',
        brand: 'Ridgeline',
        description: 'A grippy waterproof trail shoe for wet mountain runs.',
      });
      expect(result.fields.rating).to.deep.equal({ value: 4.3, count: 212, best: 5 });
      expect(result.fields.images).to.deep.equal(['https://site.example/p/trail-runner-4/main.jpg']);
      expect(result.evidence.price!.source).to.equal('heuristic');
      // The evidence selector names the element the value was read from.
      const el = queryOne(result.evidence.price!.selector!, data.document);
      expect(el?.attribs.class).to.equal('price-sale');
    });
  });

  describe('article', () => {
    it('reads an article from a JSON-LD @graph and takes content from the caller', () => {
      const mainText = 'For decades, the default street tree was whatever the nursery had in stock.\n\nPlanners now overlay maps.';
      const result = applyProfile('article', page('article-json-ld-graph.html'), { mainText });
      expect(result.fields).to.deep.equal({
        title: 'How Cities Are Rethinking Street Trees',
        author: 'Maya Jensen',
        published_date: '2024-04-02T08:15:00+00:00',
        content: mainText,
        summary: 'Heat maps, species diversity and maintenance budgets are changing how cities plant.',
        images: ['https://urbanledger.example/wp-content/uploads/street-trees.jpg'],
      });
      expect(result.evidence.author!.path).to.equal('json_ld[0].@graph[1].author');
      expect(result.evidence.content).to.deep.equal({ source: 'main_content', raw: null });
    });

    it('reads an OpenGraph-only article, skipping an author URL for the author name', () => {
      const result = applyProfile('article', page('article-opengraph.html', 'https://railnotes.example/2024/night-trains'));
      expect(result.fields.title).to.equal('Ten years of the night train revival');
      expect(result.fields.author).to.equal('Tom Ellis');
      expect(result.fields.published_date).to.equal('2024-11-18T07:00:00Z');
      expect(result.fields.summary).to.equal('Sleeper services were written off in 2014. A decade later, they are booked out.');
      expect(result.fields.images).to.deep.equal(['https://railnotes.example/media/nightjet.jpg', 'https://railnotes.example/media/sleeper-cabin.jpg']);
      expect(result.fields.content).to.equal(null);
      expect(result.evidence.title).to.deep.equal({ source: 'opengraph', selector: 'meta[property="og:title"]', raw: 'Ten years of the night train revival' });
    });

    it('uses h1, <time> and the first paragraph of the main text when nothing is declared', () => {
      const html = '<html><head><title>Notes | Blog</title></head><body><article><h1>Field notes</h1><time datetime="2023-06-01">June 1</time><p>x</p></article></body></html>';
      const mainText = 'Short.\n\nThis first real paragraph is long enough to serve as the summary of the whole page.';
      const result = applyProfile('article', extractStructuredData(html, 'https://b.example/'), { mainText });
      expect(result.fields.title).to.equal('Field notes');
      expect(result.fields.published_date).to.equal('2023-06-01');
      expect(result.fields.summary).to.equal('This first real paragraph is long enough to serve as the summary of the whole page.');
      expect(result.evidence.published_date!.source).to.equal('heuristic');
    });
  });

  describe('job_posting', () => {
    it('reads a JSON-LD JobPosting with salary range and qualifications list', () => {
      const result = applyProfile('job_posting', page('job-posting.html'));
      expect(result.fields).to.deep.equal({
        title: 'Senior Backend Engineer (TypeScript)',
        company: 'Fernwood Labs',
        location: '12 Canal Street, Manchester, M1 3HE, GB',
        salary: { currency: 'GBP', min: 70000, max: 85000, period: 'year' },
        description: 'Fernwood Labs builds logistics software for regional grocers. You will own our order-routing services.',
        requirements: ['5+ years building production services in TypeScript or Go', 'Experience with PostgreSQL and message queues'],
      });
    });

    it('falls back to page text for salary, company, location and requirements', () => {
      const html = profilePage('job-posting.html').replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, '');
      const result = applyProfile('job_posting', extractStructuredData(html, 'https://jobs.example/1'));
      expect(result.fields.company).to.equal('Fernwood Labs');
      expect(result.fields.location).to.equal('Manchester, UK (hybrid)');
      expect(result.fields.salary).to.deep.equal({ currency: 'GBP', min: 70000, max: 85000, period: 'year' });
      expect(result.fields.requirements).to.deep.equal(['5+ years building production services in TypeScript or Go', 'Experience with PostgreSQL and message queues']);
      expect(detectProfile(extractStructuredData(html, 'https://jobs.example/1')).profile).to.equal('job_posting');
    });
  });

  describe('faq', () => {
    const expectedJsonLd = [
      { question: 'How long does delivery take?', answer: 'Orders ship within 2 working days and arrive in 3–5 days.' },
      { question: 'Can I return a rug?', answer: 'Yes. Unused rugs can be returned within 30 days for a full refund.' },
      { question: 'Do you ship abroad?', answer: 'We ship to the EU, Norway and Switzerland.' },
    ];

    it('reads FAQPage JSON-LD into { questions: [{ question, answer }] } with plain-text answers', () => {
      const result = applyProfile('faq', page('faq-json-ld.html'));
      expect(result.fields).to.deep.equal({ questions: expectedJsonLd });
      expect(result.evidence.questions!.path).to.equal('json_ld[0].mainEntity');
    });

    it('reads details/summary pairs when there is no markup', () => {
      const result = applyProfile('faq', page('faq-details.html'));
      expect(result.fields.questions).to.deep.equal([
        { question: 'What sizes do lockers come in?', answer: 'Small (up to 8 cm), medium (up to 19 cm) and large (up to 39 cm high).' },
        { question: 'How long is a parcel kept?', answer: 'Parcels wait for 72 hours. After that they go back to the sender.' },
        { question: 'Can someone else collect my parcel?', answer: 'Yes, forward the collection code to them.' },
      ]);
      expect(result.evidence.questions!.source).to.equal('heuristic');
    });

    it('reads dt/dd and heading-plus-paragraph questions', () => {
      const dl = '<dl><dt>Is parking free?</dt><dd>Yes, for 3 hours.</dd><dt>Weight</dt><dd>2 kg</dd></dl>';
      expect(applyProfile('faq', extractStructuredData(dl, 'https://x.example/')).fields.questions).to.deep.equal([
        { question: 'Is parking free?', answer: 'Yes, for 3 hours.' },
      ]);
      const headings = profilePage('faq-json-ld.html').replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, '');
      expect(applyProfile('faq', extractStructuredData(headings, 'https://x.example/')).fields.questions).to.deep.equal(expectedJsonLd);
    });
  });

  describe('recipe', () => {
    it('reads a JSON-LD Recipe with sections, yield and nutrition', () => {
      const result = applyProfile('recipe', page('recipe.html'));
      expect(result.fields).to.deep.equal({
        name: 'Weeknight Chickpea Curry',
        ingredients: ['2 tbsp vegetable oil', '1 onion, finely chopped', '2 cans (400 g each) chickpeas, drained', '400 ml coconut milk', '2 tsp garam masala'],
        instructions: [
          'Heat the oil and soften the onion for 8 minutes.',
          'Stir in the garam masala and cook for 1 minute.',
          'Add chickpeas and coconut milk; simmer for 15 minutes.',
        ],
        cook_time: 'PT25M',
        servings: '4 servings',
        nutrition: { calories: '410 kcal', protein_content: '12 g', fat_content: '24 g' },
      });
    });

    it('reads ingredients and steps under headings, and times and servings from labelled text', () => {
      const result = applyProfile('recipe', page('recipe-plain.html'));
      expect(result.fields).to.deep.equal({
        name: "Grandma's Oat Biscuits",
        ingredients: ['200 g rolled oats', '100 g butter', '75 g brown sugar'],
        instructions: ['Melt the butter with the sugar.', 'Stir in the oats and press into a tin.', 'Bake at 160 °C until golden.'],
        cook_time: 'PT1H10M',
        servings: '12',
        nutrition: null,
      });
    });

    it('reads bold labels with <br>-separated lines as a heading and its list', () => {
      const html = '<div><p><strong>Zutaten:</strong><br>300 g Mehl<br>1 Ei</p><p><strong>Zubereitung:</strong></p><ol><li>Kneten.</li><li>Backen.</li></ol></div>';
      const result = applyProfile('recipe', extractStructuredData(html, 'https://r.example/'));
      expect(result.fields.ingredients).to.deep.equal(['300 g Mehl', '1 Ei']);
      expect(result.fields.instructions).to.deep.equal(['Kneten.', 'Backen.']);
    });
  });

  describe('event', () => {
    it('reads a MusicEvent with place, organizer and the first priced offer', () => {
      const result = applyProfile('event', page('event.html'));
      expect(result.fields).to.deep.equal({
        name: 'The Lowland Quartet – Spring Tour',
        date: '2025-04-12T19:30:00+01:00',
        location: 'Harbour Hall, 3 Quay Road, Bristol, BS1 4QA, GB',
        description: 'An evening of new folk arrangements from the Lowland Quartet.',
        organizer: 'Harbour Hall Trust',
        price: { amount: 22.5, currency: 'GBP' },
      });
    });

    it('falls back to <time>, venue and ticket price elements', () => {
      const html = profilePage('event.html').replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, '');
      const result = applyProfile('event', extractStructuredData(html, 'https://e.example/'));
      expect(result.fields.date).to.equal('2025-04-12T19:30:00');
      expect(result.fields.location).to.equal('Harbour Hall, Bristol');
      expect(result.fields.price).to.deep.equal({ amount: 22.5, currency: 'GBP' });
      expect(result.fields.description).to.equal('An evening of new folk arrangements.');
    });
  });

  describe('auto detection', () => {
    const cases: Array<[string, string, string]> = [
      ['product-json-ld.html', 'product', 'structured_data'],
      ['product-microdata.html', 'product', 'structured_data'],
      ['rdfa-product.html', 'product', 'structured_data'],
      ['product-plain.html', 'product', 'page_signals'],
      ['article-json-ld-graph.html', 'article', 'structured_data'],
      ['article-opengraph.html', 'article', 'opengraph'],
      ['job-posting.html', 'job_posting', 'structured_data'],
      ['faq-json-ld.html', 'faq', 'structured_data'],
      ['faq-details.html', 'faq', 'page_signals'],
      ['recipe.html', 'recipe', 'structured_data'],
      ['recipe-plain.html', 'recipe', 'page_signals'],
      ['event.html', 'event', 'structured_data'],
    ];
    for (const [file, profile, basis] of cases) {
      it(`detects ${file} as ${profile} from ${basis}`, () => {
        const detection = detectProfile(page(file));
        expect(detection.profile).to.equal(profile);
        expect(detection.basis).to.equal(basis);
        expect(applyProfile('auto', page(file)).type).to.equal(profile);
      });
    }

    it('prefers a recipe over the blog post that carries it', () => {
      expect(detectProfile(page('recipe.html')).signals).to.deep.equal(['json_ld:Recipe']);
    });

    it('does not take review-star Product markup on an article for a product', () => {
      const html = '<html><head><meta property="og:type" content="article"></head><body><div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Guide</span><div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating"><span itemprop="ratingValue">4</span></div></div></body></html>';
      expect(detectProfile(extractStructuredData(html, 'https://x.example/')).profile).to.equal('article');
    });

    it('does not take a cookie banner made of <details> for an FAQ', () => {
      const html = '<body><details><summary>Functional</summary>Always on</details><details><summary>Statistics</summary>Off</details><details><summary>Marketing</summary>Off</details><p>Text</p></body>';
      expect(detectProfile(extractStructuredData(html, 'https://x.example/')).profile).to.equal('article');
    });

    it('defaults to article when nothing signals a type', () => {
      expect(detectProfile(extractStructuredData('<p>Hello</p>', 'https://x.example/'))).to.deep.equal({ profile: 'article', basis: 'default', signals: [] });
    });
  });

  describe('json output', () => {
    it('gives { type, fields, sources } and accepts a parsed document as well as a string', () => {
      const html = profilePage('product-json-ld.html');
      const fromString = buildJsonOutput(extractStructuredData(html, 'https://northside.example/shop/aeropress-clear'));
      const fromDocument = buildJsonOutput(extractStructuredData(parseDocument(html), 'https://northside.example/shop/aeropress-clear'));
      expect(JSON.stringify(fromDocument)).to.equal(JSON.stringify(fromString));
      expect(Object.keys(fromString)).to.deep.equal(['type', 'fields', 'sources']);
      expect(fromString.type).to.equal('product');
      expect(Object.keys(fromString.sources)).to.deep.equal(['json_ld', 'microdata', 'rdfa', 'opengraph', 'twitter', 'meta']);
      expect(fromString.sources.json_ld).to.have.length(2);
      expect(fromString.sources.opengraph['product:price:amount']).to.equal('39.95');
      expect(fromString.sources.twitter['twitter:card']).to.equal('summary_large_image');
      expect(fromString.sources.meta.description).to.equal('The Aeropress Clear brews smooth, rich coffee in about a minute.');
    });

    it('uses the requested profile instead of detecting one', () => {
      const out = buildJsonOutput(page('recipe.html'), { profile: 'article', mainText: 'Body' });
      expect(out.type).to.equal('article');
      expect(out.fields.title).to.equal('Weeknight Chickpea Curry');
      expect(out.fields.author).to.equal('Priya Nair');
      expect(out.fields.content).to.equal('Body');
    });
  });
});
