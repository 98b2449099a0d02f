import { typeList } from './schema-org-types.js';
import type { Entity, EntitySource, JsonObject, JsonValue, MarkupItem, MarkupValue } from './structured-data-model.js';

function isItem(v: MarkupValue): v is MarkupItem {
  return typeof v === 'object';
}

/** A microdata or RDFa item in the JSON-LD-like shape the profiles and schema matching read. */
function toJsonLike(item: MarkupItem): JsonObject {
  const types = typeList(item.type);
  const out: JsonObject = {};
  if (types.length > 0) out['@type'] = types.length === 1 ? types[0]! : types;
  if (item.id !== undefined) out['@id'] = item.id;
  for (const [name, values] of Object.entries(item.properties)) {
    const converted: JsonValue[] = values.map((v) => (isItem(v) ? toJsonLike(v) : v));
    out[name] = converted.length === 1 ? converted[0]! : converted;
  }
  return out;
}

/** Every typed item, nested ones included, as entities with evidence paths. */
export function markupEntities(items: MarkupItem[], source: EntitySource): Entity[] {
  const entities: Entity[] = [];
  const visit = (item: MarkupItem, path: string, topLevel: boolean): void => {
    const types = typeList(item.type);
    if (types.length > 0) entities.push({ source, path, types, value: toJsonLike(item), topLevel });
    for (const [name, values] of Object.entries(item.properties)) {
      values.forEach((v, i) => {
        if (isItem(v)) visit(v, values.length === 1 ? `${path}.${name}` : `${path}.${name}[${i}]`, false);
      });
    }
  };
  items.forEach((item, i) => visit(item, `${source}[${i}]`, true));
  return entities;
}
