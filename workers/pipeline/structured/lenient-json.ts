import { decodeHTML } from 'entities';
import type { JsonValue } from './structured-data-model.js';

/**
 * JSON.parse for hand-written page markup: JSON-LD blocks in the wild carry
 * comments, trailing commas, raw newlines inside strings, HTML-escaped quotes,
 * CDATA or comment wrappers, and several objects written back to back.
 */
export function parseLenientJson(text: string): JsonValue | undefined {
  const unwrapped = unwrap(text);
  if (unwrapped === '') return undefined;
  const attempts = [unwrapped];
  if (/&(?:quot|#\d+|#x[0-9a-f]+|amp|lt|gt|apos);/i.test(unwrapped)) attempts.push(decodeHTML(unwrapped));
  for (const attempt of attempts) {
    const direct = tryParse(attempt);
    if (direct !== undefined) return direct;
    const repaired = repair(attempt);
    const parsed = tryParse(repaired);
    if (parsed !== undefined) return parsed;
    const several = splitTopLevel(repaired).map(tryParse);
    if (several.length > 1 && several.every((v) => v !== undefined)) return several as JsonValue[];
  }
  return undefined;
}

function tryParse(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function unwrap(text: string): string {
  let s = text.replace(/^\uFEFF/, '').trim();
  s = s.replace(/^(?:\/\/\s*)?<!\[CDATA\[/, '').replace(/(?:\/\/\s*)?\]\]>$/, '').trim();
  s = s.replace(/^<!--/, '').replace(/-->$/, '').trim();
  s = s.replace(/;\s*$/, '');
  return s;
}

const VALID_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u']);

/** Drops comments and trailing commas, escapes raw control characters in strings. */
function repair(text: string): string {
  const out: string[] = [];
  let pendingComma = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      if (pendingComma) {
        out.push(',');
        pendingComma = false;
      }
      out.push('"');
      i++;
      while (i < n && text[i] !== '"') {
        const d = text[i]!;
        if (d === '\\') {
          const next = text[i + 1] ?? '';
          if (next === "'") out.push("'");
          else if (VALID_ESCAPES.has(next)) out.push('\\', next);
          else out.push('\\\\', next);
          i += 2;
          continue;
        }
        if (d === '\n') out.push('\\n');
        else if (d === '\r') out.push('\\r');
        else if (d === '\t') out.push('\\t');
        else if (d < ' ') out.push(' ');
        else out.push(d);
        i++;
      }
      out.push('"');
      i++;
      continue;
    }
    if (c === "'") {
      // Single-quoted strings become JSON strings.
      if (pendingComma) {
        out.push(',');
        pendingComma = false;
      }
      let value = '';
      i++;
      while (i < n && text[i] !== "'") {
        if (text[i] === '\\' && i + 1 < n) {
          value += text[i + 1];
          i += 2;
          continue;
        }
        value += text[i];
        i++;
      }
      out.push(JSON.stringify(value));
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
      continue;
    }
    if (c === ',') {
      if (pendingComma) out.push(',');
      pendingComma = true;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      out.push(c);
      i++;
      continue;
    }
    if (pendingComma && c !== '}' && c !== ']') out.push(',');
    pendingComma = false;
    out.push(c);
    i++;
  }
  return out.join('');
}

/** Splits `{..}{..}` or `{..}\n[..]` into the separate top-level values. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0 && start >= 0) {
        parts.push(text.slice(start, i + 1));
        start = -1;
      }
      if (depth < 0) return [];
    }
  }
  return parts;
}
