import { isEmptyValue, isJsonObject, lookup, textValue } from '../json-like-values.js';
import { applyProfile } from '../profiles/apply-profile.js';
import { buildPageIndex } from '../profiles/page-index.js';
import { profileEntities } from '../profiles/profile-entities.js';
import type { ProfileName, ProfileOptions, ProfileRequest, ProfileResult } from '../profiles/profile-model.js';
import { PROFILES } from '../profiles/profile-registry.js';
import { extractStructuredData } from '../structured-data.js';
import { detectProfile } from '../profiles/profile-detection.js';
import type { Entity, Evidence, JsonObject, JsonValue, StructuredData } from '../structured-data-model.js';
import { entityScope, profileScope, rootScopes, type Scope } from './data-scopes.js';
import { fieldNames, nameMatchesType, normalizeFieldName } from './field-aliases.js';
import { normalizeSchema, type NormalizedSchema } from './normalized-schema.js';
import { coerceScalar } from './value-coercion.js';

export interface SchemaMatchOptions extends ProfileOptions {
  /** Profile whose fields are searched first; `auto` (the default) detects it. */
  profile?: ProfileRequest;
  /** A profile already applied to the same page, to avoid doing it twice. */
  profileResult?: ProfileResult;
}

export interface SchemaMatchResult {
  /** The schema's properties filled from the page; null where nothing matched. */
  filtered_content: JsonObject;
  /** Provenance per filled field, keyed by its path in filtered_content (`offers[0].price`). */
  evidence: Record<string, Evidence>;
}

interface Matched {
  value: JsonValue;
  evidence: Record<string, Evidence>;
}

interface Candidate {
  value: JsonValue;
  scope: Scope;
  path: string;
  /** Found under the requested name itself rather than an alias. */
  own: boolean;
}

/** A scope for an object found inside another scope; evidence keeps pointing back through it. */
function descend(scope: Scope, path: string, value: JsonObject): Scope {
  return { value, evidence: (p, raw) => scope.evidence(path + p, raw) };
}

function* candidates(scopes: Scope[], key: string): Generator<Candidate> {
  const names = fieldNames(key);
  for (const scope of scopes) {
    const seen = new Set<string>();
    const keys = Object.keys(scope.value);
    for (const wanted of [...names.own, ...names.aliases]) {
      for (const k of keys) {
        if (seen.has(`.${k}`) || normalizeFieldName(k) !== wanted) continue;
        const value = scope.value[k];
        if (value === undefined || isEmptyValue(value)) continue;
        seen.add(`.${k}`);
        yield { value, scope, path: `.${k}`, own: names.own.includes(wanted) };
      }
    }
    for (const path of names.paths) {
      const found = lookup(scope.value, path);
      if (!found || seen.has(found.path)) continue;
      seen.add(found.path);
      yield { value: found.value, scope, path: found.path, own: false };
    }
  }
}

function joinPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function filledCount(value: JsonObject): number {
  return Object.values(value).filter((v) => v !== null).length;
}

const MAX_DEPTH = 12;

const PRIMARY_NAMES = ['text', 'name', 'value', 'title', 'step', 'description', 'content', 'item'];

/** Which property of an object item a bare string element fills ("2 eggs" → `{ text: "2 eggs" }`). */
function primaryProperty(schema: NormalizedSchema, root: JsonObject): string | null {
  const entries = Object.entries(schema.properties).map(([k, v]) => [k, normalizeSchema(v, root).kind] as const);
  const usable = entries.filter(([, kind]) => kind === 'string' || kind === 'any');
  return usable.find(([k]) => PRIMARY_NAMES.includes(normalizeFieldName(k)))?.[0] ?? usable[0]?.[0] ?? null;
}

class Matcher {
  constructor(
    private readonly root: JsonObject,
    private readonly data: StructuredData,
    private readonly profile: ProfileResult,
    private readonly mainEntities: Entity[],
  ) {}

  properties(schema: NormalizedSchema, scopes: Scope[], path: string): { value: JsonObject; evidence: Record<string, Evidence> } {
    const value: JsonObject = {};
    let evidence: Record<string, Evidence> = {};
    for (const [key, child] of Object.entries(schema.properties)) {
      const m = this.field(normalizeSchema(child, this.root), scopes, key, joinPath(path, key));
      value[key] = m ? m.value : null;
      if (m) evidence = { ...evidence, ...m.evidence };
    }
    return { value, evidence };
  }

  field(schema: NormalizedSchema, scopes: Scope[], key: string, path: string): Matched | null {
    // A schema that refers to itself ($ref: "#") would otherwise recurse through the same scopes forever.
    if (path.split(/[.[]/).length > MAX_DEPTH) return null;
    if (schema.kind === 'object') return this.object(schema, scopes, key, path);
    if (schema.kind === 'array') return this.array(schema, scopes, key, path);
    for (const c of candidates(scopes, key)) {
      const value = coerceScalar(c.value, schema, { key, baseUrl: this.data.url });
      if (value !== null && !isEmptyValue(value)) return { value, evidence: { [path]: c.scope.evidence(c.path, c.value) } };
    }
    return null;
  }

  /** Scopes for an entity the field name refers to; the profile's own entity keeps the profile's fields in front. */
  private entityScopes(entity: Entity): Scope[] {
    return this.mainEntities.includes(entity) ? [profileScope(this.profile), ...this.mainEntities.map(entityScope)] : [entityScope(entity)];
  }

  private typedEntities(key: string): Entity[] {
    return this.data.entities.filter((e) => e.types.some((t) => nameMatchesType(key, t)));
  }

  object(schema: NormalizedSchema, scopes: Scope[], key: string, path: string): Matched | null {
    if (Object.keys(schema.properties).length === 0) {
      for (const c of candidates(scopes, key)) {
        if (isJsonObject(c.value)) return { value: c.value, evidence: { [path]: c.scope.evidence(c.path, c.value) } };
      }
      return null;
    }
    for (const c of candidates(scopes, key)) {
      const element = Array.isArray(c.value) ? c.value.findIndex(isJsonObject) : -1;
      const obj = isJsonObject(c.value) ? c.value : element >= 0 ? (c.value as JsonValue[])[element] : undefined;
      if (!isJsonObject(obj)) continue;
      const at = element >= 0 ? `${c.path}[${element}]` : c.path;
      const r = this.properties(schema, [descend(c.scope, at, obj)], path);
      if (filledCount(r.value) > 0) return r;
    }
    for (const entity of this.typedEntities(key)) {
      const r = this.properties(schema, this.entityScopes(entity), path);
      if (filledCount(r.value) > 0) return r;
    }
    // A wrapper object the page has no counterpart for ({ product: { name, price } }) is filled from the same scopes.
    const r = this.properties(schema, scopes, path);
    return filledCount(r.value) > 0 ? r : null;
  }

  array(schema: NormalizedSchema, scopes: Scope[], key: string, path: string): Matched | null {
    const items = normalizeSchema(schema.items ?? {}, this.root);
    if (items.kind === 'object' && Object.keys(items.properties).length > 0) return this.objectArray(items, scopes, key, path);
    for (const c of candidates(scopes, key)) {
      const list = Array.isArray(c.value) ? c.value.flat() : [c.value];
      const out: JsonValue[] = [];
      for (const element of list) {
        const v = items.kind === 'any' || items.kind === 'object' ? element : coerceScalar(element, items, { key, baseUrl: this.data.url });
        if (v !== null && !isEmptyValue(v) && !out.some((o) => JSON.stringify(o) === JSON.stringify(v))) out.push(v);
      }
      if (out.length > 0) return { value: out, evidence: { [path]: c.scope.evidence(c.path, c.value) } };
    }
    const named = this.typedEntities(key);
    const texts = named.map((e) => textValue(e.value.name ?? e.value.headline ?? null)).filter((t): t is string => t !== null);
    if (texts.length > 0 && (items.kind === 'string' || items.kind === 'any')) {
      return { value: texts, evidence: { [path]: { source: named[0]!.source, path: named[0]!.path, raw: texts } } };
    }
    return null;
  }

  private objectArray(items: NormalizedSchema, scopes: Scope[], key: string, path: string): Matched | null {
    const primary = primaryProperty(items, this.root);
    for (const c of candidates(scopes, key)) {
      // A single value stands for a list only under the list's own name: "links" must not become the page URL.
      if (!Array.isArray(c.value) && !(c.own && isJsonObject(c.value))) continue;
      const list = Array.isArray(c.value) ? c.value : [c.value];
      const out: JsonValue[] = [];
      let evidence: Record<string, Evidence> = {};
      list.forEach((element, i) => {
        const at = Array.isArray(c.value) ? `${c.path}[${i}]` : c.path;
        const itemPath = `${path}[${out.length}]`;
        if (isJsonObject(element)) {
          const r = this.properties(items, [descend(c.scope, at, element)], itemPath);
          if (filledCount(r.value) === 0) return;
          out.push(r.value);
          evidence = { ...evidence, ...r.evidence };
        } else if (primary) {
          const text = textValue(element);
          if (text === null) return;
          const value: JsonObject = {};
          for (const k of Object.keys(items.properties)) value[k] = k === primary ? text : null;
          out.push(value);
          evidence[`${itemPath}.${primary}`] = c.scope.evidence(at, element);
        }
      });
      if (out.length > 0) return { value: out, evidence };
    }
    const out: JsonValue[] = [];
    let evidence: Record<string, Evidence> = {};
    for (const entity of this.typedEntities(key)) {
      const r = this.properties(items, [entityScope(entity)], `${path}[${out.length}]`);
      if (filledCount(r.value) === 0) continue;
      out.push(r.value);
      evidence = { ...evidence, ...r.evidence };
    }
    return out.length > 0 ? { value: out, evidence } : null;
  }
}

/**
 * Fills a caller's JSON Schema from the page without a model: each property
 * is looked up by name and alias in the profile's fields, then the page's
 * structured data, meta tags and page basics, and coerced to its declared
 * type. Validate the schema first with validateExtractionSchema.
 */
export function matchSchema(schema: JsonObject, data: StructuredData, options: SchemaMatchOptions = {}): SchemaMatchResult {
  const index = buildPageIndex(data.document);
  const requested = options.profile ?? 'auto';
  const profile =
    options.profileResult ?? applyProfile(requested === 'auto' ? profileForSchema(schema, data) : requested, data, options);
  const mainEntities = profileEntities(data.entities, PROFILES[profile.type].matchesType);
  const matcher = new Matcher(schema, data, profile, mainEntities);
  const normalized = normalizeSchema(schema, schema);
  const r = matcher.properties(normalized, rootScopes(data, index, profile, mainEntities), '');
  return { filtered_content: r.value, evidence: r.evidence };
}

/**
 * The profile to read a page with when the caller asked for `auto` and gave a
 * schema. Detection from structured data or OpenGraph stands; when detection
 * had only page signals or nothing to go on, the profile whose fields the
 * schema's top-level properties name most (aliases counted) is taken, so
 * `{title, price}` on a bare page is read as a product.
 */
export function profileForSchema(schema: JsonObject, data: StructuredData): ProfileName {
  const detection = detectProfile(data);
  if (detection.basis === 'structured_data' || detection.basis === 'opengraph') return detection.profile;
  const properties = schema['properties'];
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return detection.profile;
  const requested = Object.keys(properties).map((name) => {
    const names = fieldNames(name);
    return new Set([...names.own, ...names.aliases]);
  });
  const score = (name: ProfileName) =>
    PROFILES[name].fields.filter((field) => requested.some((names) => names.has(normalizeFieldName(field)))).length;
  let best = detection.profile;
  let bestScore = score(best);
  for (const name of Object.keys(PROFILES) as ProfileName[]) {
    const s = score(name);
    if (s > bestScore) {
      best = name;
      bestScore = s;
    }
  }
  return best;
}

/**
 * Fills a schema from a JSON API body (the raw-JSON-API case): names and
 * aliases are looked up in the body itself, nested objects and arrays as the
 * schema nests, with the same coercion as for pages. A top-level array is
 * read as `items`. Evidence paths start at `body`.
 */
export function matchJsonBody(schema: JsonObject, body: JsonValue, url: string): SchemaMatchResult {
  const value: JsonObject = isJsonObject(body) ? body : { items: body };
  const data = extractStructuredData('', url);
  const none: ProfileResult = { type: 'article', fields: {}, evidence: {} };
  const scope: Scope = { value, evidence: (path, raw) => ({ source: 'json_body', path: `body${path}`, raw }) };
  const r = new Matcher(schema, data, none, []).properties(normalizeSchema(schema, schema), [scope], '');
  return { filtered_content: r.value, evidence: r.evidence };
}
