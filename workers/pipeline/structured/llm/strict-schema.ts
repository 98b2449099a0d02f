import { isJsonObject } from '../json-like-values.js';
import type { JsonValue } from '../structured-data-model.js';

/**
 * Whether a schema meets the providers' strict structured-output rules: every
 * object closes additionalProperties and requires all its properties.
 * Sending strict: true for any other schema makes providers reject the call.
 */
export function isStrictCompatible(schema: JsonValue): boolean {
  if (!isJsonObject(schema)) return typeof schema === 'boolean';
  const props = schema.properties;
  if (isJsonObject(props)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (schema.additionalProperties !== false) return false;
    if (!Object.keys(props).every((k) => required.includes(k))) return false;
    if (!Object.values(props).every(isStrictCompatible)) return false;
  }
  if (schema.items !== undefined && !isStrictCompatible(schema.items)) return false;
  for (const keyword of ['anyOf', '$defs', 'definitions']) {
    const sub = schema[keyword];
    const list = Array.isArray(sub) ? sub : isJsonObject(sub) ? Object.values(sub) : [];
    if (!list.every(isStrictCompatible)) return false;
  }
  return true;
}
