import { decodeHTML } from 'entities';
import { absoluteUrl } from './absolute-url.js';
import { collapseWhitespace } from './node-text.js';
import { parseDecimal } from './price-parsing.js';
import type { JsonObject, JsonValue } from './structured-data-model.js';
import { replaceTags } from '../../html/tags-in-text.js';

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isEmptyValue(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.every(isEmptyValue);
  if (isJsonObject(v)) return Object.keys(v).filter((k) => !k.startsWith('@')).length === 0 && v['@value'] === undefined;
  return false;
}

export interface Found {
  value: JsonValue;
  /** Path below the starting value, `.offers[0].price` style; empty for the value itself. */
  path: string;
}

/**
 * Follows a dotted property path through objects; arrays met on the way are
 * searched in order and the first element that yields a value wins.
 */
export function lookup(value: JsonValue | undefined, path: string): Found | null {
  const keys = path === '' ? [] : path.split('.');
  const walk = (v: JsonValue | undefined, i: number, at: string): Found | null => {
    if (v === undefined || isEmptyValue(v)) return null;
    if (i === keys.length) return { value: v, path: at };
    if (Array.isArray(v)) {
      for (let j = 0; j < v.length; j++) {
        const found = walk(v[j], i, `${at}[${j}]`);
        if (found) return found;
      }
      return null;
    }
    if (!isJsonObject(v)) return null;
    const key = keys[i]!;
    return walk(v[key], i + 1, `${at}.${key}`);
  };
  return walk(value, 0, '');
}

/** Plain text from a string that may hold HTML tags or entities (JSON-LD descriptions often do). */
export function cleanText(text: string): string {
  let s = text;
  // Entities first: some sites escape the markup itself ("&lt;p&gt;").
  if (/&[#a-z0-9]+;/i.test(s)) s = decodeHTML(s);
  if (/<[a-z/!]/i.test(s)) s = replaceTags(s, ' ');
  // A doubly escaped newline reaches us as the two characters "\n".
  s = s.replace(/\\[nrt]/g, ' ');
  return collapseWhitespace(s);
}

const TEXT_KEYS = ['@value', 'name', 'text', 'value', 'headline', 'caption', 'description', 'url', 'contentUrl', '@id'];

/** A human-readable string for a JSON-LD-like value: strings as they are, objects by their name or text. */
export function textValue(v: JsonValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') {
    const s = cleanText(v);
    return s === '' ? null : s;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    for (const item of v) {
      const s = textValue(item);
      if (s !== null) return s;
    }
    return null;
  }
  for (const key of TEXT_KEYS) {
    const s = textValue(v[key]);
    if (s !== null) return s;
  }
  return null;
}

export function textValues(v: JsonValue | undefined): string[] {
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const item of items) {
    if (Array.isArray(item)) out.push(...textValues(item));
    else {
      const s = textValue(item);
      if (s !== null && !out.includes(s)) out.push(s);
    }
  }
  return out;
}

const URL_KEYS = ['url', 'contentUrl', 'contentURL', '@id', 'src', 'thumbnailUrl'];

export function urlValue(v: JsonValue | undefined, base: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return absoluteUrl(v, base);
  if (Array.isArray(v)) {
    for (const item of v) {
      const u = urlValue(item, base);
      if (u) return u;
    }
    return null;
  }
  if (isJsonObject(v)) {
    for (const key of URL_KEYS) {
      const u = urlValue(v[key], base);
      if (u) return u;
    }
  }
  return null;
}

export function urlValues(v: JsonValue | undefined, base: string): string[] {
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const item of items) {
    const urls = Array.isArray(item) ? urlValues(item, base) : [urlValue(item, base)];
    for (const u of urls) if (u && !out.includes(u)) out.push(u);
  }
  return out;
}

/** A number from a number, a numeric string ("1.299,99"), or the first element of an array. */
export function numberValue(v: JsonValue | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') return parseDecimal(v);
  if (Array.isArray(v)) return v.length > 0 ? numberValue(v[0]) : null;
  if (isJsonObject(v) && v['@value'] !== undefined) return numberValue(v['@value']);
  return null;
}
