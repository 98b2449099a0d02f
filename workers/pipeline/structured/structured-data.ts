import { toDocument, type HtmlInput } from './document-input.js';
import { extractJsonLd, jsonLdEntities } from './json-ld.js';
import { markupEntities } from './markup-entities.js';
import { extractMetaTags } from './meta-tags.js';
import { extractMicrodata } from './microdata.js';
import { extractRdfaLite } from './rdfa-lite.js';
import type { StructuredData } from './structured-data-model.js';

/**
 * Reads every kind of embedded structured data from a page: JSON-LD,
 * microdata, RDFa Lite, OpenGraph, Twitter cards and meta tags. `url` resolves
 * relative URLs; it is never fetched.
 */
export function extractStructuredData(input: HtmlInput, url: string): StructuredData {
  const document = toDocument(input);
  const jsonLd = extractJsonLd(document);
  const microdata = extractMicrodata(document, url);
  const rdfa = extractRdfaLite(document, url);
  const { opengraph, twitter, meta } = extractMetaTags(document, url);
  return {
    url,
    document,
    sources: { json_ld: jsonLd, microdata, rdfa, opengraph, twitter, meta },
    entities: [...jsonLdEntities(jsonLd), ...markupEntities(microdata, 'microdata'), ...markupEntities(rdfa, 'rdfa')],
  };
}
