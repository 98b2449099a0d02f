import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { structuredPatch } from 'diff';
import { CHANGE_TRACKING_LIMITS } from '../../common/limits.js';
import { canonicalJson, isJsonObject } from './change-material.js';

/** One field of a structured diff; `field` is a dotted path into nested objects (arrays are compared whole). */
export interface FieldChange {
  field: string;
  old: JsonValue | null;
  new: JsonValue | null;
  change: 'added' | 'removed' | 'modified';
}

/**
 * A unified diff (as `diff -u` writes it) of two normalised contents, the
 * previous as `previous`, this crawl's as `current`; empty when they are
 * equal. The Myers line diff is jsdiff's; hunks are written here so the
 * headers carry no file names or timestamps.
 */
export function contentDiff(previous: string, current: string): string {
  if (previous === current) return '';
  const patch = structuredPatch('previous', 'current', `${previous}\n`, `${current}\n`, undefined, undefined, { context: CHANGE_TRACKING_LIMITS.diffContextLines });
  const out = ['--- previous', '+++ current'];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  }
  return `${out.join('\n')}\n`;
}

/** Leaves of an object by dotted path: nested objects are walked, anything else (arrays too) is a leaf. */
function leaves(value: JsonObject, prefix = '', into = new Map<string, JsonValue>()): Map<string, JsonValue> {
  for (const [key, v] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isJsonObject(v) && Object.keys(v).length > 0) leaves(v, path, into);
    else into.set(path, v);
  }
  return into;
}

/** The field-level changes between two sets of structured fields, in field order (previous fields first). */
export function fieldChanges(previous: JsonObject, current: JsonObject): FieldChange[] {
  const before = leaves(previous);
  const after = leaves(current);
  const changes: FieldChange[] = [];
  for (const [field, old] of before) {
    if (!after.has(field)) changes.push({ field, old, new: null, change: 'removed' });
    else if (canonicalJson(old) !== canonicalJson(after.get(field))) changes.push({ field, old, new: after.get(field)!, change: 'modified' });
  }
  for (const [field, value] of after) if (!before.has(field)) changes.push({ field, old: null, new: value, change: 'added' });
  return changes;
}
