import type { Element } from 'domhandler';
import { selectorFor } from '../element-selector.js';
import { isEmptyValue, lookup } from '../json-like-values.js';
import type { Entity, Evidence, JsonValue, StructuredData, TagMap } from '../structured-data-model.js';

/** A profile field's value with where it came from. */
export interface Resolved {
  value: JsonValue;
  evidence: Evidence;
}

export type Probe = () => Resolved | null;

/** Structured data first, heuristics second: the first probe with a value wins. */
export function firstResolved(...probes: Probe[]): Resolved | null {
  for (const probe of probes) {
    const r = probe();
    if (r && !isEmptyValue(r.value)) return r;
  }
  return null;
}

/** Reads the first of `paths` that normalises to a value, entity by entity. */
export function fromEntities(entities: Entity[], paths: string[], normalise: (raw: JsonValue) => JsonValue | null): Probe {
  return () => {
    for (const entity of entities) {
      for (const path of paths) {
        const found = lookup(entity.value, path);
        if (!found) continue;
        const value = normalise(found.value);
        if (value !== null && !isEmptyValue(value)) {
          return { value, evidence: { source: entity.source, path: entity.path + found.path, raw: found.value } };
        }
      }
    }
    return null;
  };
}

export type TagKind = 'opengraph' | 'twitter' | 'meta';

const SPECIAL_META_SELECTORS: Record<string, string> = {
  title: 'title',
  canonical: 'link[rel="canonical"]',
  language: 'html[lang]',
};

export function tagSelector(kind: TagKind, key: string): string {
  if (kind === 'opengraph') return `meta[property="${key}"]`;
  if (kind === 'meta' && SPECIAL_META_SELECTORS[key]) return SPECIAL_META_SELECTORS[key];
  return `meta[name="${key}"]`;
}

function tagMap(data: StructuredData, kind: TagKind): TagMap {
  return data.sources[kind];
}

/** Reads OpenGraph, Twitter or meta tags: `[['opengraph', 'og:title'], ['meta', 'title']]`. */
export function fromTags(
  data: StructuredData,
  keys: Array<[TagKind, string]>,
  normalise: (raw: string[]) => JsonValue | null,
): Probe {
  return () => {
    for (const [kind, key] of keys) {
      const raw = tagMap(data, kind)[key];
      if (raw === undefined) continue;
      const list = Array.isArray(raw) ? raw : [raw];
      const value = normalise(list);
      if (value !== null && !isEmptyValue(value)) {
        return { value, evidence: { source: kind, selector: tagSelector(kind, key), raw: Array.isArray(raw) ? [...raw] : raw } };
      }
    }
    return null;
  };
}

/** A value read from a page element by a heuristic. */
export function fromElement(el: Element | null | undefined, value: JsonValue | null, raw: JsonValue): Resolved | null {
  if (!el || value === null || isEmptyValue(value)) return null;
  return { value, evidence: { source: 'heuristic', selector: selectorFor(el), raw } };
}

/** A value found by a heuristic over several elements or the page text, named by a selector. */
export function fromHeuristic(selector: string, value: JsonValue | null, raw: JsonValue): Resolved | null {
  if (value === null || isEmptyValue(value)) return null;
  return { value, evidence: { source: 'heuristic', selector, raw } };
}

export function firstString(values: string[]): string | null {
  for (const v of values) if (v.trim() !== '') return v.trim();
  return null;
}
