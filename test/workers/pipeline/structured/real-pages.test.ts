import { expect } from 'chai';
import { existsSync } from 'node:fs';
import {
  applyProfile,
  buildJsonOutput,
  buildSectionTree,
  detectProfile,
  extractStructuredData,
  matchSchema,
} from '../../../../workers/pipeline/structured/index.js';
import { EXTRACTION_HTML_DIR as DIR, extractionPageFiles, readExtractionPage } from '../../../fixtures/extraction-pages.js';

function realPage(name: string): string {
  return readExtractionPage(`${name}.html.gz`);
}

describe('structured/real pages', () => {
  before(function () {
    expect(existsSync(DIR), `reference pages at ${DIR}`).to.equal(true);
  });

  it('reads a JSON-LD recipe from a large recipe site', () => {
    const data = extractStructuredData(realPage('chefkoch.de.mandarinen'), 'https://www.chefkoch.de/rezepte/mandarinen');
    expect(detectProfile(data).profile).to.equal('recipe');
    const { fields } = applyProfile('recipe', data);
    expect(fields.name).to.equal('Mandarinen-Schmand-Kuchen');
    expect(fields.ingredients).to.include('125 g Mehl');
    expect((fields.instructions as string[]).length).to.be.greaterThan(3);
  });

  it('reads a recipe whose steps are HowToStep objects', () => {
    const { type, fields } = applyProfile('auto', extractStructuredData(realPage('archive.org.przepisy.pl.pierogi'), 'https://www.przepisy.pl/pierogi'));
    expect(type).to.equal('recipe');
    expect(fields.name).to.equal('Pierogi z dynią w sosie szałwiowym');
    expect((fields.ingredients as string[]).length).to.equal(15);
    expect((fields.instructions as string[])[0]).to.match(/^Z mąki, wody, soli i jajka/);
  });

  it('reads a news article with an ISO date and author', () => {
    const { type, fields } = applyProfile('auto', extractStructuredData(realPage('0a29620f9c4347758c146ed06dab6f3e'), 'https://www.tagblatt.ch/x'));
    expect(type).to.equal('article');
    expect(fields.author).to.equal('Bettina Kugler');
    expect(fields.published_date).to.equal('2019-10-19T03:00:00Z');
    expect(fields.title).to.match(/^Tanz in der St. Galler Lokremise/);
  });

  it('parses JSON-LD written with single-quoted strings', () => {
    const data = extractStructuredData(realPage('Maciej_Krzysztoszek_rzecznik_prasowy_Amica_mened_er_komunikacji_zewn_trznej'), 'https://www.wirtualnemedia.pl/x');
    expect(data.sources.json_ld).to.have.length(1);
    expect(applyProfile('article', data).fields).to.deep.include({ title: 'Maciej Krzysztoszek rzecznikiem prasowym Grupy Amica', published_date: '2021-05-12' });
  });

  it('reads a microdata product and matches a schema against it', () => {
    const data = extractStructuredData(realPage('de.happycoffee.org.sidamo'), 'https://de.happycoffee.org/sidamo');
    expect(applyProfile('auto', data).fields).to.deep.include({ name: 'Happy Coffee SIDAMO Bio Bohnen', price: 27.9, currency: 'EUR', availability: 'in_stock' });
    const { filtered_content } = matchSchema({ properties: { title: { type: 'string' }, price: { type: 'number' }, in_stock: { type: 'boolean' } } }, data);
    expect(filtered_content).to.deep.equal({ title: 'Happy Coffee SIDAMO Bio Bohnen', price: 27.9, in_stock: true });
  });

  it('reads an FAQPage and a microdata event', () => {
    const faq = applyProfile('auto', extractStructuredData(realPage('smava.de.privatkredit'), 'https://www.smava.de/privatkredit'));
    expect(faq.type).to.equal('faq');
    expect((faq.fields.questions as unknown[]).length).to.be.greaterThan(3);
    const event = applyProfile('auto', extractStructuredData(realPage('wehranlage-horka.de.887'), 'https://wehranlage-horka.de/887'));
    expect(event.type).to.equal('event');
    expect(event.fields).to.deep.include({ name: 'Historischer Markt', date: '2012-05-13T11:00:00' });
  });

  it('handles a sample of pages without throwing, with a title and parsed JSON-LD wherever present', () => {
    const names = extractionPageFiles().filter((_, i) => i % 10 === 0);
    expect(names.length).to.be.greaterThan(40);
    for (const file of names) {
      const html = readExtractionPage(file);
      const data = extractStructuredData(html, `https://example.org/${file}`);
      const out = buildJsonOutput(data);
      const blocks = (html.match(/<script[^>]+application\/ld\+json/gi) ?? []).length;
      if (blocks > 0) expect(data.sources.json_ld.length, file).to.be.greaterThan(0);
      const title = out.fields.title ?? out.fields.name ?? (out.type === 'faq' ? 'faq' : null);
      expect(title, file).to.be.a('string');
      const tree = JSON.stringify(buildSectionTree(data.document, `https://example.org/${file}`));
      expect(JSON.stringify(buildSectionTree(html, `https://example.org/${file}`)), file).to.equal(tree);
    }
  });
});
