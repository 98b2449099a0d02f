import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

/**
 * Converts zod schemas to JSON Schema 2020-12 (the dialect OpenAPI 3.1
 * uses), hoisting schemas that carry an id into `components`.
 */
export function schemaConverter(components: Record<string, JsonSchema>) {
  return (schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema => {
    const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const defs = json.$defs ?? {};
    delete json.$defs;
    delete json.$schema;
    for (const [name, def] of Object.entries(defs)) components[name] ??= rewriteRefs(def) as JsonSchema;
    const id = (schema.meta() as { id?: string } | undefined)?.id;
    const body = rewriteRefs(json) as JsonSchema;
    if (!id) return body;
    delete body['id'];
    components[id] ??= body;
    return { $ref: `#/components/schemas/${id}` };
  };
}
