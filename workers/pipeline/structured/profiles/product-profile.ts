import { queryAll } from '../dom-query.js';
import { absoluteUrl } from '../absolute-url.js';
import { selectorFor } from '../element-selector.js';
import { isJsonObject, numberValue as toNumber, textValue, urlValues } from '../json-like-values.js';
import { textOf } from '../node-text.js';
import { currencyCode, parseDecimal } from '../price-parsing.js';
import type { JsonValue } from '../structured-data-model.js';
import { firstResolved, firstString, fromElement, fromEntities, fromHeuristic, fromTags, type Resolved } from './field-resolution.js';
import {
  addToCartElement,
  contentImages,
  descriptionProbes,
  firstHintText,
  imageTagProbes,
  priceHint,
  titleProbes,
} from './page-probes.js';
import { normaliseAvailability } from './product-availability.js';
import type { ProfileContext, ProfileDefinition } from './profile-model.js';

const PRODUCT_TYPES = new Set(['Product', 'ProductGroup', 'IndividualProduct', 'ProductModel', 'SomeProducts', 'Vehicle', 'Car', 'Motorcycle']);

function toCurrency(raw: JsonValue): string | null {
  const text = textValue(raw);
  return text ? (currencyCode(text) ?? (/^[A-Za-z]{3}$/.test(text) ? text.toUpperCase() : null)) : null;
}

function toAvailability(raw: JsonValue): string | null {
  const text = textValue(raw);
  return text ? normaliseAvailability(text) : null;
}

/** `{ value, count, best }` from an AggregateRating (count is reviewCount or ratingCount). */
export function toRating(raw: JsonValue): JsonValue | null {
  if (!isJsonObject(raw)) return null;
  const value = toNumber(raw.ratingValue ?? null);
  if (value === null) return null;
  const count = toNumber(raw.reviewCount ?? raw.ratingCount ?? null);
  const best = toNumber(raw.bestRating ?? null);
  return { value, count: count === null ? null : Math.round(count), best };
}

const RATING_TEXT = /(\d(?:[.,]\d{1,2})?)\s*(?:out of|\/|von|sur|de|su|of)\s*(5|10)\b/i;
// Tried once per run of digits and marks (from its start), not from each digit of a long run; the count is the same.
const RATING_COUNT = /(?<![\d,.])[,.]*(\d[\d,.]*)\s*(?:customer\s+)?(?:reviews?|ratings?|bewertungen|avis|reseñas|recensioni)/i;

function ratingFromPage(ctx: ProfileContext): Resolved | null {
  const candidates = ctx.index.elements.filter((el) => /rating|stars|review/i.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`));
  for (const el of candidates) {
    const text = [el.attribs['aria-label'] ?? '', el.attribs.title ?? '', textOf(el)].join(' ');
    const m = RATING_TEXT.exec(text);
    if (!m) continue;
    const value = parseDecimal(m[1]!);
    if (value === null) continue;
    const count = RATING_COUNT.exec(text);
    const countValue = count ? parseDecimal(count[1]!) : null;
    return fromElement(el, { value, count: countValue === null ? null : Math.round(countValue), best: Number(m[2]) }, m[0]);
  }
  return null;
}

function availabilityFromPage(ctx: ProfileContext): Resolved | null {
  const stock = firstHintText(ctx.index, /stock|availability|inventory/i, normaliseAvailability);
  if (stock) return stock;
  const cart = addToCartElement(ctx.index);
  if (!cart) return null;
  // A disabled buy button is how many shops show "sold out" without saying so.
  const disabled = cart.attribs.disabled !== undefined || cart.attribs['aria-disabled'] === 'true';
  return fromElement(cart, disabled ? 'out_of_stock' : 'in_stock', textOf(cart) || (cart.attribs.value ?? ''));
}

function galleryImages(ctx: ProfileContext): Resolved | null {
  const urls: string[] = [];
  let selector = '';
  const selectors = '[class*="product" i] img, [class*="gallery" i] img, [id*="product" i] img, [class*="image" i] img, [class*="photo" i] img';
  for (const img of queryAll(selectors, ctx.data.document)) {
    const url = absoluteUrl(img.attribs.src ?? img.attribs['data-src'], ctx.data.url);
    if (!url || url.startsWith('data:') || urls.includes(url)) continue;
    selector ||= selectorFor(img);
    urls.push(url);
    if (urls.length >= 10) break;
  }
  return urls.length > 0 ? fromHeuristic(selector, urls, urls) : (contentImages(ctx.data, 'main') ?? contentImages(ctx.data, 'body'));
}

export const productProfile: ProfileDefinition = {
  name: 'product',
  fields: ['name', 'price', 'currency', 'images', 'rating', 'availability', 'brand', 'description'],
  matchesType: (t) => PRODUCT_TYPES.has(t),
  resolve(ctx) {
    const { data, entities } = ctx;
    const hint = priceHint(ctx.index);
    const price = firstResolved(
      fromEntities(entities, ['offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'offers.highPrice', 'price'], toNumber),
      fromTags(data, [['opengraph', 'product:price:amount'], ['opengraph', 'og:price:amount']], (raw) => toNumber(raw[0] ?? null)),
      () => (hint ? fromElement(hint.el, hint.match.amount, hint.match.raw) : null),
    );
    const currency = firstResolved(
      fromEntities(entities, ['offers.priceCurrency', 'offers.priceSpecification.priceCurrency', 'priceCurrency'], toCurrency),
      fromTags(data, [['opengraph', 'product:price:currency'], ['opengraph', 'og:price:currency']], (raw) => toCurrency(raw[0] ?? null)),
      () => (hint && hint.match.currency ? fromElement(hint.el, hint.match.currency, hint.match.raw) : null),
    );
    return {
      name: firstResolved(fromEntities(entities, ['name'], textValue), ...titleProbes(data, ctx.index)),
      price,
      currency,
      images: firstResolved(fromEntities(entities, ['image'], (raw) => urlValues(raw, data.url)), ...imageTagProbes(data), () => galleryImages(ctx)),
      rating: firstResolved(fromEntities(entities, ['aggregateRating'], toRating), () => ratingFromPage(ctx)),
      availability: firstResolved(
        fromEntities(entities, ['offers.availability', 'availability'], toAvailability),
        fromTags(data, [['opengraph', 'product:availability'], ['opengraph', 'og:availability']], (raw) => normaliseAvailability(raw[0] ?? '')),
        () => availabilityFromPage(ctx),
      ),
      brand: firstResolved(
        fromEntities(entities, ['brand', 'manufacturer'], textValue),
        fromTags(data, [['opengraph', 'product:brand'], ['opengraph', 'og:brand']], firstString),
        () => firstHintText(ctx.index, /\bbrand\b|product-brand|brand-name/i, (t) => (t.length <= 60 ? t.replace(/^brand:\s*/i, '') : null)),
      ),
      description: firstResolved(fromEntities(entities, ['description'], textValue), ...descriptionProbes(data)),
    };
  },
};

