import { toIsoDate } from '../date-normalization.js';
import { isJsonObject, lookup, numberValue, textValue } from '../json-like-values.js';
import { textOf } from '../node-text.js';
import { currencyCode, findPrices } from '../price-parsing.js';
import type { JsonValue } from '../structured-data-model.js';
import { firstResolved, fromElement, fromEntities, type Resolved } from './field-resolution.js';
import { descriptionProbes, elementsWithHint, firstHintText, firstTimeElement, titleProbes } from './page-probes.js';
import { placeText } from './place-text.js';
import type { ProfileContext, ProfileDefinition } from './profile-model.js';

/** Event, MusicEvent, SportsEvent, Festival... */
export function isEventType(type: string): boolean {
  return type === 'Festival' || (type.endsWith('Event') && type !== 'PublicationEvent' && type !== 'BroadcastEvent');
}

function toDate(raw: JsonValue): string | null {
  const text = textValue(raw);
  return text ? toIsoDate(text) : null;
}

/** `{ amount, currency }` from offers (lowest listed price), or amount 0 for free events. */
function toEventPrice(raw: JsonValue): JsonValue | null {
  const offers = Array.isArray(raw) ? raw : [raw];
  for (const offer of offers) {
    if (!isJsonObject(offer)) continue;
    const amount = numberValue(offer.price ?? offer.lowPrice ?? lookup(offer, 'priceSpecification.price')?.value ?? null);
    if (amount === null) continue;
    const currencyText = textValue(offer.priceCurrency ?? lookup(offer, 'priceSpecification.priceCurrency')?.value ?? null);
    return { amount, currency: currencyText ? (currencyCode(currencyText) ?? currencyText.toUpperCase()) : null };
  }
  return null;
}

function priceFromPage(ctx: ProfileContext): Resolved | null {
  for (const el of elementsWithHint(ctx.index, /price|ticket|admission|cost/i, 150)) {
    const text = textOf(el);
    const match = findPrices(text)[0];
    if (match) return fromElement(el, { amount: match.amount, currency: match.currency }, match.raw);
    if (/^(free|free entry|free admission|kostenlos|eintritt frei|gratuit|gratis)\b/i.test(text)) return fromElement(el, { amount: 0, currency: null }, text);
  }
  return null;
}

export const eventProfile: ProfileDefinition = {
  name: 'event',
  fields: ['name', 'date', 'location', 'description', 'organizer', 'price'],
  matchesType: isEventType,
  resolve(ctx) {
    const { data, entities } = ctx;
    return {
      name: firstResolved(fromEntities(entities, ['name'], textValue), ...titleProbes(data, ctx.index)),
      date: firstResolved(fromEntities(entities, ['startDate', 'doorTime'], toDate), () => firstTimeElement(ctx.index)),
      location: firstResolved(
        fromEntities(entities, ['location'], placeText),
        () => firstHintText(ctx.index, /venue|location|event-place/i, (t) => (t.length <= 150 ? t.replace(/^(venue|location):\s*/i, '') : null), 150),
      ),
      description: firstResolved(fromEntities(entities, ['description'], textValue), ...descriptionProbes(data)),
      organizer: firstResolved(
        fromEntities(entities, ['organizer'], textValue),
        () => firstHintText(ctx.index, /organi[sz]er|host|presented-by/i, (t) => (t.length <= 80 ? t.replace(/^(organi[sz]ed by|organi[sz]er|hosted by|host):?\s*/i, '') : null)),
      ),
      price: firstResolved(
        fromEntities(entities, ['offers'], toEventPrice),
        fromEntities(entities, ['isAccessibleForFree'], (raw) => (raw === true || textValue(raw)?.toLowerCase() === 'true' ? { amount: 0, currency: null } : null)),
        () => priceFromPage(ctx),
      ),
    };
  },
};
