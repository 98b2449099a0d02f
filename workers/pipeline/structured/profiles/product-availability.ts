import { shortTypeName } from '../schema-org-types.js';

const SCHEMA_VALUES: Record<string, string> = {
  instock: 'in_stock',
  outofstock: 'out_of_stock',
  soldout: 'sold_out',
  preorder: 'pre_order',
  presale: 'pre_sale',
  backorder: 'back_order',
  discontinued: 'discontinued',
  limitedavailability: 'limited_availability',
  onlineonly: 'online_only',
  instoreonly: 'in_store_only',
  madetoorder: 'made_to_order',
  reserved: 'reserved',
};

const TEXT_RULES: Array<[RegExp, string]> = [
  [/\b(out of stock|sold out|currently unavailable|not available|unavailable|ausverkauft|nicht (auf lager|lieferbar|verfügbar)|rupture de stock|épuisé|agotado|esaurito)\b/i, 'out_of_stock'],
  [/\bpre-?order\b|\bvorbestell/i, 'pre_order'],
  [/\bback-?order/i, 'back_order'],
  [/\bdiscontinued\b/i, 'discontinued'],
  [/\b(only \d+ left|limited stock|few left)\b/i, 'limited_availability'],
  [/\b(in stock|available|auf lager|lieferbar|verfügbar|en stock|disponible|disponibile|op voorraad)\b/i, 'in_stock'],
];

/**
 * Availability as a snake_case schema.org ItemAvailability name (`in_stock`,
 * `out_of_stock`, `pre_order`...) from schema.org URLs, bare names or shop text.
 */
export function normaliseAvailability(raw: string): string | null {
  const key = shortTypeName(raw).toLowerCase().replace(/[^a-z]/g, '');
  if (SCHEMA_VALUES[key]) return SCHEMA_VALUES[key];
  for (const [pattern, value] of TEXT_RULES) if (pattern.test(raw)) return value;
  return null;
}
