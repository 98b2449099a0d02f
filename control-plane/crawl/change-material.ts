import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

/**
 * What change tracking compares of a crawled page (docs/api.md, change
 * tracking): the page's main content as text, normalised, and its
 * structured fields, each with a SHA-256.
 */
export interface ChangeMaterial {
  /** The normalised main content: Markdown when the crawl produces it, else text, else HTML, else canonical JSON. */
  content: string;
  contentHash: string;
  /** The page's structured fields (extraction_schema output, else the json format's fields, else title and metadata). */
  fields: JsonObject;
  fieldsHash: string;
}

/** The stored result fields change tracking reads (a ScrapeResult as JSON). */
export interface TrackedResult {
  content: JsonValue;
  title: string;
  metadata: JsonObject;
  filteredContent?: JsonObject | undefined;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Content as compared: Unicode NFC, line endings as LF, trailing whitespace
 * of each line removed, runs of spaces and tabs inside a line made one
 * space, runs of blank lines made one, and blank lines at either end
 * dropped. Indentation at the start of a line is kept (it means something
 * in Markdown lists and code).
 */
export function normaliseContent(text: string): string {
  const lines = text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => {
      const indent = /^[ \t]*/.exec(line)![0];
      return indent + line.slice(indent.length).replace(/[ \t]+/g, ' ').trimEnd();
    });
  const kept: string[] = [];
  for (const line of lines) {
    const blank = line.trim() === '';
    if (blank && (kept.length === 0 || kept[kept.length - 1] === '')) continue;
    kept.push(blank ? '' : line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return kept.join('\n');
}

/** JSON with object keys sorted at every level, so equal values serialise equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const TEXT_BASES = ['markdown', 'text', 'html'] as const;

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

function contentText(content: JsonValue): string {
  // One text format: the content is that string; several: an object keyed by format.
  if (typeof content === 'string') return normaliseContent(content);
  if (isJsonObject(content)) {
    for (const basis of TEXT_BASES) {
      const text = content[basis];
      if (typeof text === 'string') return normaliseContent(text);
    }
  }
  return canonicalJson(content);
}

function structuredFields(result: TrackedResult): JsonObject {
  if (result.filteredContent) return result.filteredContent;
  const json = isJsonObject(result.content) ? result.content['json'] : undefined;
  if (isJsonObject(json) && isJsonObject(json['fields'])) return json['fields'];
  return { title: result.title, ...result.metadata };
}

/** The change material of a page's stored result. */
export function changeMaterial(result: TrackedResult): ChangeMaterial {
  const content = contentText(result.content);
  const fields = structuredFields(result);
  return { content, contentHash: sha256Hex(content), fields, fieldsHash: sha256Hex(canonicalJson(fields)) };
}
