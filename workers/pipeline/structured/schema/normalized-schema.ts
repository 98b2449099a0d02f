import { isJsonObject } from '../json-like-values.js';
import type { JsonObject, JsonValue } from '../structured-data-model.js';

export type SchemaKind = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'any';

/** One schema node reduced to what matching needs: $ref followed, allOf merged, the first non-null branch of anyOf/oneOf. */
export interface NormalizedSchema {
  kind: SchemaKind;
  properties: Record<string, JsonValue>;
  items: JsonValue | null;
  format: string | null;
  enumValues: JsonValue[] | null;
}

function follow(node: JsonValue, root: JsonObject, depth: number): JsonObject {
  if (!isJsonObject(node)) return {};
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#') && depth < 16) {
    let target: JsonValue | undefined = root;
    for (const raw of ref.slice(2).split('/').filter((p) => p !== '')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isJsonObject(target) ? target[key] : undefined;
    }
    if (target !== undefined) return follow(target, root, depth + 1);
  }
  return node;
}

function firstType(type: JsonValue | undefined): string | null {
  if (typeof type === 'string') return type === 'null' ? null : type;
  if (Array.isArray(type)) {
    const t = type.find((x) => typeof x === 'string' && x !== 'null');
    return typeof t === 'string' ? t : null;
  }
  return null;
}

export function normalizeSchema(node: JsonValue, root: JsonObject, depth = 0): NormalizedSchema {
  let schema = follow(node, root, depth);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches) && schema.type === undefined && schema.properties === undefined) {
    const usable = branches.map((b) => follow(b, root, depth + 1)).find((b) => firstType(b.type) !== null || b.properties !== undefined || b.items !== undefined);
    if (usable) schema = usable;
  }
  let properties: Record<string, JsonValue> = isJsonObject(schema.properties) ? { ...schema.properties } : {};
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const p = follow(part, root, depth + 1);
      if (isJsonObject(p.properties)) properties = { ...properties, ...p.properties };
    }
  }
  const declared = firstType(schema.type);
  const kind: SchemaKind =
    declared === 'string' || declared === 'number' || declared === 'integer' || declared === 'boolean' || declared === 'object' || declared === 'array'
      ? declared
      : Object.keys(properties).length > 0
        ? 'object'
        : schema.items !== undefined
          ? 'array'
          : 'any';
  return {
    kind,
    properties,
    items: schema.items ?? null,
    format: typeof schema.format === 'string' ? schema.format : null,
    enumValues: Array.isArray(schema.enum) ? schema.enum : null,
  };
}
