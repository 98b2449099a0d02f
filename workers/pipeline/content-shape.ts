import type { JsonValue } from '@bufbuild/protobuf';

const TEXT_FORMATS = new Set(['markdown', 'text', 'html']);

/** A result's content: a string when exactly one text format was asked for, else the object keyed by format. */
export function shapeContent(formats: Record<string, JsonValue>, requested: readonly string[]): JsonValue {
  if (requested.length === 1 && TEXT_FORMATS.has(requested[0]!)) return formats[requested[0]!] ?? '';
  return formats;
}
