import type { Document } from 'domhandler';
import { queryAll, queryOne } from './dom-query.js';
import { absoluteUrl } from './absolute-url.js';
import { textOf } from './node-text.js';
import type { TagMap } from './structured-data-model.js';

const RESERVED = new Set(['title', 'canonical', 'language']);
const OPENGRAPH_PREFIXES = ['og:', 'article:', 'product:', 'book:', 'profile:', 'music:', 'video:'];

function add(map: TagMap, key: string, value: string): void {
  const existing = map[key];
  if (existing === undefined) map[key] = value;
  else if (Array.isArray(existing)) {
    if (!existing.includes(value)) existing.push(value);
  } else if (existing !== value) map[key] = [existing, value];
}

export interface MetaTags {
  opengraph: TagMap;
  twitter: TagMap;
  meta: TagMap;
}

/**
 * OpenGraph (og:, article:, product: ... wherever sites put them, property= or
 * name=), Twitter cards, and the page's standard meta: every named meta tag
 * plus `title`, `canonical` and `language`.
 */
export function extractMetaTags(document: Document, baseUrl: string): MetaTags {
  const opengraph: TagMap = {};
  const twitter: TagMap = {};
  const meta: TagMap = {};
  const title = textOf(queryOne('title', document));
  if (title) meta.title = title;
  const canonical = queryOne('link[rel~="canonical" i][href]', document);
  const canonicalUrl = canonical ? absoluteUrl(canonical.attribs.href, baseUrl) : null;
  if (canonicalUrl) meta.canonical = canonicalUrl;
  const html = queryOne('html[lang]', document);
  const lang = html?.attribs.lang?.trim();
  if (lang) meta.language = lang;
  for (const el of queryAll('meta', document)) {
    if (el.attribs.itemprop !== undefined) continue;
    const key = (el.attribs.property ?? el.attribs.name ?? '').trim().toLowerCase();
    const value = (el.attribs.content ?? el.attribs.value ?? '').trim();
    if (key === '' || value === '') continue;
    if (key.startsWith('twitter:')) add(twitter, key, value);
    else if (OPENGRAPH_PREFIXES.some((p) => key.startsWith(p))) add(opengraph, key, value);
    else if (el.attribs.name !== undefined) {
      // The title element, canonical link and lang attribute win over same-named meta tags.
      if (RESERVED.has(key) && meta[key] !== undefined) continue;
      add(meta, key, value);
    }
  }
  return { opengraph, twitter, meta };
}
