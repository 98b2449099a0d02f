import { absoluteUrl } from '../absolute-url.js';
import { queryAll } from '../dom-query.js';
import { selectorFor } from '../element-selector.js';
import { textOf } from '../node-text.js';
import { tagSelector, type TagKind } from '../profiles/field-resolution.js';
import type { PageIndex } from '../profiles/page-index.js';
import { mainHeading } from '../profiles/page-probes.js';
import type { ProfileResult } from '../profiles/profile-model.js';
import type { Entity, Evidence, JsonObject, JsonValue, StructuredData } from '../structured-data-model.js';

/**
 * A body of page data that schema fields are looked up in, with the way to
 * describe where a value inside it came from.
 */
export interface Scope {
  value: JsonObject;
  /** Evidence for a value found at `path` (`.offers.price`, `.og:title`) inside `value`. */
  evidence(path: string, raw: JsonValue): Evidence;
}

/** The first key of a `.a[0].b` path. */
function firstKey(path: string): string {
  const m = /^\.([^.[]+)/.exec(path);
  return m ? m[1]! : '';
}

export function entityScope(entity: Entity): Scope {
  return subScope(entity.source, entity.path, entity.value);
}

/** A scope inside a value from a data source (an entity's `offers`, an array element). */
export function subScope(source: Entity['source'], basePath: string, value: JsonObject): Scope {
  return { value, evidence: (path, raw) => ({ source, path: basePath + path, raw }) };
}

function tagScope(kind: TagKind, data: StructuredData): Scope {
  return {
    value: data.sources[kind] as JsonObject,
    evidence: (path, raw) => ({ source: kind, selector: tagSelector(kind, firstKey(path)), raw }),
  };
}

/**
 * The profile's fields. A field reports the evidence it was filled from; a
 * value inside a field (one FAQ answer, the rating count) reports the same
 * source with that value as raw.
 */
export function profileScope(result: ProfileResult): Scope {
  return {
    value: result.fields,
    evidence: (path, raw) => {
      const key = firstKey(path);
      const field = result.evidence[key] ?? { source: 'heuristic', raw: null };
      return path === `.${key}` ? field : { ...field, raw };
    },
  };
}

/** Page basics any schema may ask for, read from the markup: title, h1, headings, links, images... */
function pageScope(data: StructuredData, index: PageIndex): Scope {
  const value: JsonObject = {};
  const selectors: Record<string, string> = {};
  const set = (key: string, v: JsonValue, selector: string): void => {
    value[key] = v;
    selectors[key] = selector;
  };
  const h1 = mainHeading(index);
  if (h1) set('h1', textOf(h1), selectorFor(h1));
  set('url', data.url, 'link[rel="canonical"]');
  const headings = queryAll('h1, h2, h3', data.document).map((h) => textOf(h)).filter((t) => t !== '');
  if (headings.length > 0) set('headings', headings, 'h1, h2, h3');
  const links: JsonValue[] = [];
  for (const a of queryAll('a[href]', data.document)) {
    const href = absoluteUrl(a.attribs.href, data.url);
    const text = textOf(a);
    if (href && text && !href.startsWith('javascript:')) links.push({ text, href });
    if (links.length >= 500) break;
  }
  if (links.length > 0) set('links', links, 'a[href]');
  const images: JsonValue[] = [];
  for (const img of queryAll('img[src]', data.document)) {
    const src = absoluteUrl(img.attribs.src, data.url);
    if (src && !src.startsWith('data:') && !images.includes(src)) images.push(src);
    if (images.length >= 100) break;
  }
  if (images.length > 0) set('images', images, 'img[src]');
  return {
    value,
    evidence: (path, raw) => ({ source: 'heuristic', selector: selectors[firstKey(path)] ?? 'body', raw }),
  };
}

/**
 * Where top-level schema fields are looked up, in order: the profile's
 * fields, the profile's main entity, other content entities, site-level
 * entities (WebSite, Organization, BreadcrumbList...), OpenGraph, Twitter,
 * meta tags, then the page basics.
 */
export function rootScopes(data: StructuredData, index: PageIndex, profile: ProfileResult, mainEntities: Entity[]): Scope[] {
  const siteLevel = new Set(['WebSite', 'WebPage', 'Organization', 'BreadcrumbList', 'ListItem', 'SiteNavigationElement', 'ImageObject', 'SearchAction', 'EntryPoint', 'ReadAction', 'WPHeader', 'WPFooter', 'WPSideBar']);
  const rest = data.entities.filter((e) => !mainEntities.includes(e));
  const content = rest.filter((e) => !e.types.every((t) => siteLevel.has(t)));
  const site = rest.filter((e) => e.types.every((t) => siteLevel.has(t)));
  return [
    profileScope(profile),
    ...mainEntities.map(entityScope),
    ...content.map(entityScope),
    ...site.map(entityScope),
    tagScope('opengraph', data),
    tagScope('twitter', data),
    tagScope('meta', data),
    pageScope(data, index),
  ];
}
