// Probes shared by several profiles: page title, description, images, dates and price hints.
import type { Element } from 'domhandler';
import { queryAll, queryOne } from '../dom-query.js';
import { absoluteUrl } from '../absolute-url.js';
import { toIsoDate } from '../date-normalization.js';
import { textOf } from '../node-text.js';
import { findPrices, type PriceMatch } from '../price-parsing.js';
import type { StructuredData } from '../structured-data-model.js';
import { firstString, fromElement, fromHeuristic, fromTags, type Probe, type Resolved } from './field-resolution.js';
import type { PageIndex } from './page-index.js';


const SITE_SUFFIX = /\s+[|–—·:-]\s+[^|–—·:]{1,40}$/;

/** `<title>` without a trailing " | Site name" part. */
export function stripSiteSuffix(title: string, siteName: string | null): string {
  if (siteName) {
    for (const sep of [' | ', ' - ', ' – ', ' — ', ' · ', ' :: ']) {
      if (title.endsWith(sep + siteName)) return title.slice(0, -(sep.length + siteName.length)).trim();
    }
  }
  const stripped = title.replace(SITE_SUFFIX, '');
  return stripped.length >= 8 ? stripped : title;
}

function siteName(data: StructuredData): string | null {
  const raw = data.sources.opengraph['og:site_name'];
  return Array.isArray(raw) ? (raw[0] ?? null) : (raw ?? null);
}

/** The page's own heading: the first h1 of the article or main element, else of the page. */
export function mainHeading(index: PageIndex): Element | null {
  const scope = queryOne('article h1, main h1, [role="main"] h1', index.document);
  if (scope && textOf(scope)) return scope;
  return index.elements.find((el) => el.name === 'h1' && textOf(el) !== '') ?? null;
}

export function titleProbes(data: StructuredData, index: PageIndex): Probe[] {
  return [
    fromTags(data, [['opengraph', 'og:title'], ['twitter', 'twitter:title']], firstString),
    () => {
      const h1 = mainHeading(index);
      return h1 ? fromElement(h1, textOf(h1), textOf(h1)) : null;
    },
    fromTags(data, [['meta', 'title']], (raw) => {
      const t = firstString(raw);
      return t ? stripSiteSuffix(t, siteName(data)) : null;
    }),
  ];
}

export function descriptionProbes(data: StructuredData): Probe[] {
  return [
    fromTags(
      data,
      [['opengraph', 'og:description'], ['meta', 'description'], ['twitter', 'twitter:description']],
      firstString,
    ),
  ];
}

export function imageTagProbes(data: StructuredData): Probe[] {
  const toUrls = (raw: string[]): string[] => raw.map((r) => absoluteUrl(r, data.url)).filter((u): u is string => u !== null);
  return [
    fromTags(
      data,
      [['opengraph', 'og:image'], ['opengraph', 'og:image:url'], ['opengraph', 'og:image:secure_url'], ['twitter', 'twitter:image'], ['twitter', 'twitter:image:src']],
      toUrls,
    ),
  ];
}

/** Content images under `scope` (a selector), skipping icons, tracking pixels and inline data. */
export function contentImages(data: StructuredData, scopeSelector: string, limit = 10): Resolved | null {
  const scope = queryOne(scopeSelector, data.document);
  if (!scope) return null;
  const urls: string[] = [];
  for (const img of queryAll('img', scope)) {
    const src = img.attribs.src ?? img.attribs['data-src'] ?? '';
    if (src === '' || src.startsWith('data:')) continue;
    const w = Number(img.attribs.width ?? 'NaN');
    const h = Number(img.attribs.height ?? 'NaN');
    if ((Number.isFinite(w) && w < 50) || (Number.isFinite(h) && h < 50)) continue;
    if (/\b(icon|logo|avatar|sprite|pixel|spacer)\b/i.test(`${img.attribs.class ?? ''} ${src}`)) continue;
    const url = absoluteUrl(src, data.url);
    if (url && !urls.includes(url)) urls.push(url);
    if (urls.length >= limit) break;
  }
  return fromHeuristic(`${scopeSelector} img`, urls, urls);
}

/** Elements whose class or id contains a hint (`price`, `brand`...) and whose text is short. */
export function elementsWithHint(index: PageIndex, hint: RegExp, maxLength = 200): Element[] {
  return index.elements.filter((el) => {
    const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    if (!hint.test(names)) return false;
    const len = textOf(el).length;
    return len > 0 && len <= maxLength;
  });
}

export function firstHintText(index: PageIndex, hint: RegExp, clean: (text: string) => string | null, maxLength = 120): Resolved | null {
  for (const el of elementsWithHint(index, hint, maxLength)) {
    const text = textOf(el);
    const value = clean(text);
    if (value) return fromElement(el, value, text);
  }
  return null;
}

/** The first `<time>` with a machine-readable date, preferring the article or main element. */
export function firstTimeElement(index: PageIndex): Resolved | null {
  const candidates = [
    ...queryAll('article time[datetime], main time[datetime], header time[datetime]', index.document),
    ...queryAll('time[datetime]', index.document),
  ];
  for (const el of candidates) {
    const raw = el.attribs.datetime ?? '';
    const iso = toIsoDate(raw);
    if (iso) return fromElement(el, iso, raw);
  }
  for (const el of queryAll('time', index.document)) {
    const raw = textOf(el);
    const iso = toIsoDate(raw);
    if (iso) return fromElement(el, iso, raw);
  }
  return null;
}

const ADD_TO_CART_TEXT =
  /add to (cart|bag|basket|trolley)|buy now|in den (warenkorb|einkaufswagen)|ajouter au panier|añadir al carrito|aggiungi al carrello|in winkelwagen|do koszyka/i;
const ADD_TO_CART_NAME = /add[-_ ]?to[-_ ]?(cart|bag|basket)|buy[-_ ]?now|addtocart/i;

export function addToCartElement(index: PageIndex): Element | null {
  for (const el of index.elements) {
    if (el.name !== 'button' && el.name !== 'input' && el.name !== 'a') continue;
    const label = el.name === 'input' ? (el.attribs.value ?? '') : textOf(el);
    const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''} ${el.attribs.name ?? ''}`;
    if (ADD_TO_CART_TEXT.test(label) || ADD_TO_CART_NAME.test(names)) return el;
  }
  return null;
}

const OLD_PRICE = /\b(old|was|regular|compare|strike|list|original|before|rrp|uvp)\b/i;
const CURRENT_PRICE = /\b(sale|current|now|final|special|actual|offer|our)\b/i;

function insideStrikeThrough(el: Element): boolean {
  let node: Element | null = el;
  while (node) {
    if (node.name === 's' || node.name === 'del' || node.name === 'strike') return true;
    if (OLD_PRICE.test(node.attribs.class ?? '')) return true;
    node = node.parent && node.parent.type === 'tag' ? (node.parent as Element) : null;
  }
  return false;
}

export interface PriceHint {
  el: Element;
  match: PriceMatch;
}

/**
 * The product price a person would read: a price-classed element near the
 * add-to-cart button (sale price over a struck-through one), else the first
 * price-classed element of the page, else the first marked amount near the button.
 */
const LABELLED_PRICE_TAGS = new Set(['p', 'span', 'div', 'li', 'dd', 'td', 'strong', 'b']);

export function priceHint(index: PageIndex): PriceHint | null {
  const cart = addToCartElement(index);
  const scopes: Element[] = [];
  let node: Element | null = cart;
  for (let depth = 0; node && depth < 6; depth++) {
    scopes.push(node);
    node = node.parent && node.parent.type === 'tag' ? (node.parent as Element) : null;
  }
  const priced = (candidates: Element[]): PriceHint | null => {
    const usable = candidates
      .filter((el) => !insideStrikeThrough(el))
      .map((el) => ({ el, match: findPrices(textOf(el))[0] }))
      .filter((c): c is PriceHint => c.match !== undefined);
    return usable.find((c) => CURRENT_PRICE.test(c.el.attribs.class ?? '')) ?? usable[0] ?? null;
  };
  for (const scope of scopes.slice(1)) {
    const found = priced(queryAll('[class*="price" i], [id*="price" i]', scope));
    if (found) return found;
  }
  const pageWide = priced(elementsWithHint(index, /price/i, 80));
  if (pageWide) return pageWide;
  // A short text block labelled as a price ("Price: £39.95"), for pages without price classes.
  const labelled = priced(
    index.elements.filter((el) => {
      if (!LABELLED_PRICE_TAGS.has(el.name)) return false;
      const text = textOf(el);
      return text.length <= 80 && /\bprice\b/i.test(text);
    }),
  );
  if (labelled) return labelled;
  for (const scope of scopes.slice(1)) {
    const match = findPrices(textOf(scope))[0];
    if (match) return { el: scope, match };
  }
  return null;
}
