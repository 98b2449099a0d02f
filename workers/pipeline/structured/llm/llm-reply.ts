import { parseLenientJson } from '../lenient-json.js';
import type { JsonValue } from '../structured-data-model.js';

/**
 * The JSON a model wrote: the whole message, or the first ```json fenced
 * block, or the outermost {...} / [...] in surrounding prose. Only objects and
 * arrays count. Undefined when there is none.
 */
export function parseModelJson(message: string): JsonValue | undefined {
  const candidates: string[] = [message.trim()];
  const fenced = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(message);
  if (fenced) candidates.unshift(fenced[1]!.trim());
  const open = message.search(/[[{]/);
  if (open >= 0) {
    const close = Math.max(message.lastIndexOf('}'), message.lastIndexOf(']'));
    if (close > open) candidates.push(message.slice(open, close + 1));
  }
  for (const candidate of candidates) {
    const value = parseLenientJson(candidate);
    if (value !== undefined && typeof value === 'object' && value !== null) return value;
  }
  return undefined;
}
