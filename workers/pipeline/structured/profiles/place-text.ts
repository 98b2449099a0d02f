import { isJsonObject, textValue } from '../json-like-values.js';
import type { JsonValue } from '../structured-data-model.js';

const ADDRESS_PARTS = ['streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry'];

function addressText(raw: JsonValue): string | null {
  if (!isJsonObject(raw)) return textValue(raw);
  const parts: string[] = [];
  for (const key of ADDRESS_PARTS) {
    const part = textValue(raw[key] ?? null);
    if (part && !parts.includes(part)) parts.push(part);
  }
  return parts.length > 0 ? parts.join(', ') : textValue(raw.name ?? null);
}

/** One line for a Place, PostalAddress or plain string: "Venue, street, city, region, postcode, country". */
export function placeText(raw: JsonValue): string | null {
  const items = Array.isArray(raw) ? raw : [raw];
  const lines: string[] = [];
  for (const item of items) {
    let line: string | null;
    if (!isJsonObject(item)) line = textValue(item);
    else if (item.address !== undefined || item.name !== undefined) {
      const name = textValue(item.name ?? null);
      const address = item.address === undefined ? null : addressText(item.address);
      line = [name, address].filter((p): p is string => p !== null && p !== '').join(', ') || null;
    } else line = addressText(item);
    if (line && !lines.includes(line)) lines.push(line);
  }
  return lines.length > 0 ? lines.join('; ') : null;
}
