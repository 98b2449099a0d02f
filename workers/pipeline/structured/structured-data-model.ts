import type { Document } from 'domhandler';

/** A JSON value as it appears in outputs. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Where a value was read from. */
export type SourceKind =
  | 'json_ld'
  | 'microdata'
  | 'rdfa'
  | 'opengraph'
  | 'twitter'
  | 'meta'
  | 'heuristic'
  | 'main_content'
  | 'json_body';

/**
 * Provenance of one output value: `path` addresses data inside a source
 * (`json_ld[0].@graph[2].offers.price`), `selector` names the page element a
 * heuristic read (`h1`, `meta[name="description"]`). `raw` is the value before
 * normalisation or coercion.
 */
export interface Evidence {
  source: SourceKind;
  path?: string;
  selector?: string;
  raw: JsonValue;
}

/** A microdata or RDFa item in the WHATWG microdata JSON form. */
export interface MarkupItem {
  type: string[];
  properties: Record<string, MarkupValue[]>;
  id?: string;
}
export type MarkupValue = string | MarkupItem;

/** Flat tag maps: one string per tag, an array when a tag repeats. */
export type TagMap = Record<string, string | string[]>;

export interface StructuredSources {
  json_ld: JsonValue[];
  microdata: MarkupItem[];
  rdfa: MarkupItem[];
  opengraph: TagMap;
  twitter: TagMap;
  meta: TagMap;
}

export type EntitySource = 'json_ld' | 'microdata' | 'rdfa';

/**
 * One typed thing found on the page (a Product, an Article...), in a
 * JSON-LD-like shape whatever the markup it came from: `@type` plus
 * properties, single values unwrapped, references resolved.
 */
export interface Entity {
  source: EntitySource;
  /** Evidence path of the entity itself, e.g. `json_ld[1].@graph[0]`. */
  path: string;
  /** Short schema.org-style type names (`Product`, `NewsArticle`). */
  types: string[];
  value: JsonObject;
  /** False for entities nested inside another entity. */
  topLevel: boolean;
}

export interface StructuredData {
  url: string;
  /** The parsed page, kept for the page heuristics of the profiles. */
  document: Document;
  sources: StructuredSources;
  entities: Entity[];
}
