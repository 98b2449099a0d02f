import { TrawlError } from './errors.js';
import { MAX_EXTRACTION_SCHEMA_BYTES } from './limits.js';

export { MAX_EXTRACTION_SCHEMA_BYTES };
const MAX_DEPTH = 32;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

function fail(field: string, message: string, details: Record<string, unknown> = {}): never {
  throw new TrawlError('VALIDATION_ERROR', message, { field, ...details });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function resolvePointer(root: Record<string, unknown>, ref: string): unknown {
  if (ref === '#') return root;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined; // A malformed escape points at nothing.
    }
    if (!isPlainObject(node) || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

/** JSON nesting allowed anywhere in a schema (keywords like `default` and `enum` included); it travels as a protobuf Struct. */
const MAX_JSON_NESTING = 40;

/** Every value of the schema is one JSON can write (no Infinity from `1e400`), and nesting stays bounded; iterative. */
function checkValues(schema: Record<string, unknown>, field: string): void {
  const stack: Array<[unknown, string, number]> = [[schema, field, 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'number' && !Number.isFinite(value)) fail(path, `${path} is a number out of range`);
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_NESTING) fail(path, `${field} nests deeper than ${MAX_JSON_NESTING} levels`);
    if (Array.isArray(value)) value.forEach((v, i) => stack.push([v, `${path}[${i}]`, depth + 1]));
    else for (const [k, v] of Object.entries(value)) stack.push([v, `${path}.${k}`, depth + 1]);
  }
}

function checkNode(node: unknown, path: string, root: Record<string, unknown>, depth: number): void {
  if (typeof node === 'boolean') return;
  if (!isPlainObject(node)) fail(path, `${path} must be a JSON Schema object`);
  if (depth > MAX_DEPTH) fail(path, `extraction_schema nests deeper than ${MAX_DEPTH} levels`);
  const type = node.type;
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type];
    if (list.length === 0 || !list.every((t) => typeof t === 'string' && TYPES.has(t))) {
      fail(`${path}.type`, `${path}.type must be one of ${[...TYPES].join(', ')} or an array of them`);
    }
  }
  if (node.$ref !== undefined) {
    if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#')) fail(`${path}.$ref`, `${path}.$ref must be a local reference starting with #`);
    if (resolvePointer(root, node.$ref) === undefined) fail(`${path}.$ref`, `${path}.$ref points at nothing: ${node.$ref}`);
  }
  if (node.properties !== undefined) {
    if (!isPlainObject(node.properties)) fail(`${path}.properties`, `${path}.properties must be an object`);
    for (const [key, child] of Object.entries(node.properties)) checkNode(child, `${path}.properties.${key}`, root, depth + 1);
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) fail(`${path}.items`, `${path}.items must be a single schema, not a tuple`);
    checkNode(node.items, `${path}.items`, root, depth + 1);
  }
  if (node.enum !== undefined && !Array.isArray(node.enum)) fail(`${path}.enum`, `${path}.enum must be an array`);
  if (node.required !== undefined && !(Array.isArray(node.required) && node.required.every((r) => typeof r === 'string'))) {
    fail(`${path}.required`, `${path}.required must be an array of property names`);
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = node[keyword];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) fail(`${path}.${keyword}`, `${path}.${keyword} must be a non-empty array`);
    list.forEach((child, i) => checkNode(child, `${path}.${keyword}[${i}]`, root, depth + 1));
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const table = node[defs];
    if (table === undefined) continue;
    if (!isPlainObject(table)) fail(`${path}.${defs}`, `${path}.${defs} must be an object`);
    for (const [key, child] of Object.entries(table)) checkNode(child, `${path}.${defs}.${key}`, root, depth + 1);
  }
}

/**
 * Checks a caller's extraction_schema before any work: at most 64 KB as
 * UTF-8 JSON, an object schema with `properties`, known `type` names, local
 * `$ref`s that resolve, single-schema `items`. Throws a TrawlError with code
 * VALIDATION_ERROR (HTTP 400) whose `details.field` is the offending path,
 * e.g. `extraction_schema.properties.price.type`.
 */
export function validateExtractionSchema(schema: unknown, field = 'extraction_schema'): void {
  if (!isPlainObject(schema)) fail(field, `${field} must be a JSON object`);
  let serialized: string;
  try {
    serialized = JSON.stringify(schema);
  } catch {
    fail(field, `${field} must be serializable JSON`);
  }
  checkValues(schema, field);
  const size = Buffer.byteLength(serialized, 'utf8');
  if (size > MAX_EXTRACTION_SCHEMA_BYTES) {
    fail(field, `${field} is ${size} bytes; the limit is ${MAX_EXTRACTION_SCHEMA_BYTES} bytes (64 KB)`, {
      size_bytes: size,
      limit_bytes: MAX_EXTRACTION_SCHEMA_BYTES,
    });
  }
  const type = schema.type;
  if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) {
    fail(`${field}.type`, `${field} must describe an object (type "object")`);
  }
  if (!isPlainObject(schema.properties) || Object.keys(schema.properties).length === 0) {
    fail(`${field}.properties`, `${field} must declare at least one property under "properties"`);
  }
  checkNode(schema, field, schema, 0);
}
