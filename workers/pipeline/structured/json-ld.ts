import type { Document, Element } from 'domhandler';
import { queryAll } from './dom-query.js';
import { parseLenientJson } from './lenient-json.js';
import { typeList } from './schema-org-types.js';
import type { Entity, JsonObject, JsonValue } from './structured-data-model.js';

function scriptText(el: Element): string {
  return el.children.map((c) => ('data' in c && typeof c.data === 'string' ? c.data : '')).join('');
}

/** Every `application/ld+json` block that parses, in document order. */
export function extractJsonLd(document: Document): JsonValue[] {
  const blocks: JsonValue[] = [];
  for (const script of queryAll('script', document)) {
    const type = (script.attribs.type ?? '').toLowerCase();
    if (!type.startsWith('application/ld+json')) continue;
    const value = parseLenientJson(scriptText(script));
    if (value !== undefined && value !== null) blocks.push(pruneDepth(value, MAX_JSON_LD_DEPTH));
  }
  return blocks;
}

/**
 * Values nested deeper than this in a JSON-LD block become null. Real blocks
 * stay within a dozen levels; the readers that walk them recurse, so a hostile
 * block of 100,000 nested objects must not reach them.
 */
export const MAX_JSON_LD_DEPTH = 64;

/** Cuts a parsed value at `maxDepth` in place (iteratively) and returns it. */
export function pruneDepth(value: JsonValue, maxDepth: number): JsonValue {
  const stack: Array<[JsonValue, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child = node[i]!;
        if (child !== null && typeof child === 'object') {
          if (depth + 1 >= maxDepth) node[i] = null;
          else stack.push([child, depth + 1]);
        }
      }
    } else {
      for (const key of Object.keys(node)) {
        const child = node[key]!;
        if (child !== null && typeof child === 'object') {
          if (depth + 1 >= maxDepth) node[key] = null;
          else stack.push([child, depth + 1]);
        }
      }
    }
  }
  return value;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isReference(v: JsonObject): boolean {
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === '@id' && typeof v['@id'] === 'string';
}

/** Nodes named by `@id` anywhere in any block, so references like `"author": {"@id": "#p"}` can be followed. */
function indexNodes(blocks: JsonValue[]): Map<string, JsonObject> {
  const index = new Map<string, JsonObject>();
  const visit = (v: JsonValue): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) {
      const id = v['@id'];
      if (typeof id === 'string' && !isReference(v) && !index.has(id)) index.set(id, v);
      for (const child of Object.values(v)) visit(child);
    }
  };
  blocks.forEach(visit);
  return index;
}

const MAX_RESOLVE_DEPTH = 8;

function resolve(v: JsonValue, index: Map<string, JsonObject>, seen: Set<string>, depth: number): JsonValue {
  if (Array.isArray(v)) return v.map((x) => resolve(x, index, seen, depth));
  if (!isObject(v)) return v;
  let node = v;
  const id = typeof v['@id'] === 'string' ? v['@id'] : undefined;
  if (isReference(v) && id !== undefined) {
    const target = index.get(id);
    // A reference back to an ancestor stays a reference: graphs are often cyclic.
    if (!target || seen.has(id) || depth >= MAX_RESOLVE_DEPTH) return v;
    node = target;
  }
  const nextSeen = id !== undefined ? new Set(seen).add(id) : seen;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(node)) {
    if (key === '@context') continue;
    out[key] = resolve(child, index, nextSeen, depth + 1);
  }
  return out;
}

/** Typed nodes of the JSON-LD blocks, top-level ones (including `@graph` members) first within each block. */
export function jsonLdEntities(blocks: JsonValue[]): Entity[] {
  const index = indexNodes(blocks);
  const entities: Entity[] = [];
  const visit = (v: JsonValue, path: string, topLevel: boolean): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${path}[${i}]`, topLevel));
      return;
    }
    if (!isObject(v) || isReference(v)) return;
    const graph = v['@graph'];
    if (graph !== undefined) visit(graph, `${path}.@graph`, topLevel);
    const types = typeList(v['@type']);
    const isEntity = types.length > 0;
    if (isEntity) {
      const id = typeof v['@id'] === 'string' ? new Set([v['@id']]) : new Set<string>();
      const value = resolve(v, index, id, 0) as JsonObject;
      delete value['@graph'];
      entities.push({ source: 'json_ld', path, types, value, topLevel });
    }
    for (const [key, child] of Object.entries(v)) {
      if (key === '@graph' || key === '@context') continue;
      visit(child, `${path}.${key}`, topLevel && !isEntity);
    }
  };
  blocks.forEach((block, i) => visit(block, `json_ld[${i}]`, true));
  return entities;
}
