import type { JsonValue } from '@bufbuild/protobuf';

/**
 * Values nested deeper than this become null. Results travel as protobuf
 * Values, whose decoders stop at 100 message levels, and every JSON level is
 * two of those (a Value and its Struct or ListValue) below the result's own.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Makes parsed JSON safe to store and serve, in place and without recursion:
 * numbers JSON.parse turned into Infinity (`1e400`) become null, as JSON has
 * no way to write them back, and values deeper than `maxDepth` become null.
 */
export function toSafeJson<T extends JsonValue | undefined>(value: T, maxDepth = MAX_JSON_DEPTH): T {
  if (typeof value === 'number') return (Number.isFinite(value) ? value : null) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: Array<[JsonValue[] | { [k: string]: JsonValue }, number]> = [[value as never, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    const keys: Array<string | number> = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    for (const key of keys) {
      const child = (node as Record<string | number, JsonValue>)[key]!;
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) (node as Record<string | number, JsonValue>)[key] = null;
      } else if (child !== null && typeof child === 'object') {
        if (depth + 1 >= maxDepth) (node as Record<string | number, JsonValue>)[key] = null;
        else stack.push([child as never, depth + 1]);
      }
    }
  }
  return value;
}
