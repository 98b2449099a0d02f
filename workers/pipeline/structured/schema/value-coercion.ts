import { absoluteUrl } from '../absolute-url.js';
import { toIsoDate, toIsoDay } from '../date-normalization.js';
import { isJsonObject, numberValue, textValue } from '../json-like-values.js';
import { normaliseAvailability } from '../profiles/product-availability.js';
import { placeText } from '../profiles/place-text.js';
import { parseDecimal } from '../price-parsing.js';
import { shortTypeName } from '../schema-org-types.js';
import type { JsonValue } from '../structured-data-model.js';
import { normalizeFieldName } from './field-aliases.js';
import type { NormalizedSchema } from './normalized-schema.js';

export interface CoercionContext {
  /** The schema property name, for name-implied formats (`published_date`, `image_url`). */
  key: string;
  baseUrl: string;
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'on', 'instock', 'available', 'onlineonly', 'instoreonly', 'limitedavailability']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'off', 'outofstock', 'soldout', 'discontinued', 'unavailable', 'preorder', 'presale', 'backorder']);
const AVAILABLE = new Set(['in_stock', 'limited_availability', 'online_only', 'in_store_only']);

function toBoolean(raw: JsonValue): boolean | null {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw !== 0;
  if (typeof raw !== 'string') return null;
  const word = shortTypeName(raw).toLowerCase().replace(/[^a-z0-9]/g, '');
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  const availability = normaliseAvailability(raw);
  return availability === null ? null : AVAILABLE.has(availability);
}

const NUMBER_KEYS = ['@value', 'value', 'ratingValue', 'price', 'amount', 'lowPrice', 'minValue', 'min'];

function toNumber(raw: JsonValue): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
  if (typeof raw === 'string') return /\d/.test(raw) ? parseDecimal(raw) : null;
  if (isJsonObject(raw)) {
    for (const key of NUMBER_KEYS) {
      const n = numberValue(raw[key]);
      if (n !== null) return n;
    }
  }
  return null;
}

const DATE_NAME = /(date|_at|At|datetime|published|updated|modified|created)$/;
const URL_NAME = /(url|uri|link|href|image|img|src|photo|thumbnail|logo)s?$/i;
const PLACE_TYPES = new Set(['Place', 'PostalAddress', 'LocalBusiness', 'Organization']);

function isPlaceLike(raw: JsonValue): boolean {
  if (!isJsonObject(raw)) return false;
  const type = raw['@type'];
  const types = Array.isArray(type) ? type : [type];
  return raw.address !== undefined || types.some((t) => typeof t === 'string' && PLACE_TYPES.has(t) && raw.name === undefined);
}

function toStringValue(raw: JsonValue, schema: NormalizedSchema, ctx: CoercionContext): string | null {
  let text: string | null;
  if (isJsonObject(raw) && isPlaceLike(raw) && /location|address|place|venue|where/.test(normalizeFieldName(ctx.key))) text = placeText(raw);
  else if (isJsonObject(raw) && raw.min !== undefined && raw.max !== undefined) text = rangeText(raw);
  else text = textValue(raw);
  if (text === null) return null;
  const format = schema.format;
  if (format === 'date') return toIsoDay(text);
  if (format === 'date-time') return toIsoDate(text);
  if (format === 'uri' || format === 'url' || format === 'iri') return absoluteUrl(text, ctx.baseUrl);
  if (format === null && DATE_NAME.test(ctx.key)) return toIsoDate(text) ?? text;
  if (format === null && URL_NAME.test(ctx.key) && /^(\/|\.\.?\/|[\w-]+\/)/.test(text)) return absoluteUrl(text, ctx.baseUrl) ?? text;
  return text;
}

/** "70000–85000 GBP per year" for a salary-like `{ min, max, currency, period }`. */
function rangeText(raw: { [key: string]: JsonValue }): string | null {
  const min = numberValue(raw.min);
  const max = numberValue(raw.max);
  if (min === null && max === null) return null;
  const amount = min !== null && max !== null && min !== max ? `${min}–${max}` : String(min ?? max);
  const currency = typeof raw.currency === 'string' ? ` ${raw.currency}` : '';
  const period = typeof raw.period === 'string' ? ` per ${raw.period}` : '';
  return `${amount}${currency}${period}`;
}

function matchEnum(value: JsonValue, options: JsonValue[]): JsonValue | null {
  for (const option of options) if (option === value) return option;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
  const key = normalizeFieldName(shortTypeName(String(value)));
  for (const option of options) {
    if ((typeof option === 'string' || typeof option === 'number') && normalizeFieldName(shortTypeName(String(option))) === key) return option;
  }
  return null;
}

/**
 * Coerces a found value to a scalar schema: strings (object → name/text,
 * place → one line, dates → ISO 8601 when the format or the name says date),
 * numbers ("$1,299.99", "1.299,99 €", rating objects), integers (rounded),
 * booleans ("In stock", schema.org availability URLs, yes/no), enums (matched
 * case- and separator-insensitively). Arrays give their first usable element.
 * Returns null when the value cannot become the type.
 */
export function coerceScalar(raw: JsonValue, schema: NormalizedSchema, ctx: CoercionContext): JsonValue | null {
  if (Array.isArray(raw)) {
    for (const item of raw) {
      const v = coerceScalar(item, schema, ctx);
      if (v !== null) return v;
    }
    return null;
  }
  let value: JsonValue | null;
  switch (schema.kind) {
    case 'boolean':
      value = toBoolean(isJsonObject(raw) ? (textValue(raw) ?? null) : raw);
      break;
    case 'number':
      value = toNumber(raw);
      break;
    case 'integer': {
      const n = toNumber(raw);
      value = n === null ? null : Math.round(n);
      break;
    }
    case 'string':
      value = toStringValue(raw, schema, ctx);
      break;
    default:
      value = raw;
  }
  if (value === null) return null;
  return schema.enumValues ? matchEnum(value, schema.enumValues) : value;
}
