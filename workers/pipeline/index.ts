import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { convertHtml, convertMarkdown, convertText, type ContentResult } from './content/index.js';
import { limitNesting } from './nesting-guard.js';
import { toSafeJson } from './safe-json.js';
import { buildOutputs, type LlmConfig } from './outputs.js';

export interface PipelineConfig {
  llm: LlmConfig;
}

export interface PipelineInput {
  body: string;
  /** A MIME type from a fetch, or the extract endpoint's html / text / markdown. */
  contentType: string;
  url: string;
  formats: readonly string[];
  onlyMainContent: boolean;
  extractionSchema?: JsonObject | undefined;
  extractionProfile?: string | undefined;
  extractionPrompt?: string | undefined;
  evidence?: boolean;
  rag?: { chunkSize?: number; overlap?: number };
  /** Which prompt limit applies. */
  endpoint?: 'scrape' | 'extract';
  /** The extract endpoint answers a schema or prompt in its json format. */
  jsonIsFiltered?: boolean;
}

export interface PipelineOutput {
  /** A string when exactly one text format was asked for, else an object keyed by format. */
  content: JsonValue;
  formats: Record<string, JsonValue>;
  title: string;
  metadata: JsonObject;
  filteredContent?: JsonObject;
  evidence?: JsonObject;
  extractionMethod: string;
  modelUsed?: string;
}

const TEXT_FORMATS = new Set(['markdown', 'text', 'html']);

function isJsonType(contentType: string): boolean {
  return contentType === 'application/json' || contentType.endsWith('+json') || contentType === 'json';
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** SPEC 2.3 rule 1: a JSON API body is parsed into content.json; html is the JSON shown, not for parsing. */
function rawJsonApi(body: string, input: PipelineInput): PipelineOutput | null {
  let parsed: JsonValue;
  try {
    parsed = toSafeJson(JSON.parse(body) as JsonValue);
  } catch {
    return null;
  }
  const pretty = JSON.stringify(parsed, null, 2);
  const all: Record<string, JsonValue> = {
    json: parsed,
    html: `<pre><code class="language-json">${escapeHtml(pretty)}</code></pre>`,
    markdown: `\`\`\`json\n${pretty}\n\`\`\``,
    text: pretty,
  };
  const formats: Record<string, JsonValue> = {};
  for (const f of input.formats) formats[f] = all[f] ?? null;
  return { content: shapeContent(formats, input.formats), formats, title: '', metadata: {}, extractionMethod: 'raw_json_api' };
}

export function shapeContent(formats: Record<string, JsonValue>, requested: readonly string[]): JsonValue {
  if (requested.length === 1 && TEXT_FORMATS.has(requested[0]!)) return formats[requested[0]!] ?? '';
  return formats;
}

function convert(input: PipelineInput): { result: ContentResult; html: string | null } {
  const type = input.contentType.toLowerCase();
  if (type === 'markdown' || type === 'text/markdown') return { result: convertMarkdown(input.body, input.url), html: null };
  if (type === 'text' || type === 'text/plain') return { result: convertText(input.body), html: null };
  const body = limitNesting(input.body);
  return { result: convertHtml(body, { url: input.url, onlyMainContent: input.onlyMainContent }), html: body };
}

/**
 * Turns a fetched or supplied document into every requested output. Runs in
 * the worker pools only: it is CPU-bound.
 */
export async function runPipeline(input: PipelineInput, config: PipelineConfig): Promise<PipelineOutput> {
  if (isJsonType(input.contentType.toLowerCase())) {
    const api = rawJsonApi(input.body, input);
    if (api) return api;
  }
  const { result, html } = convert(input);
  const outputs = await buildOutputs({ input, content: result, sourceHtml: html }, config.llm);
  return {
    content: shapeContent(outputs.formats, input.formats),
    formats: outputs.formats,
    title: result.title,
    metadata: result.metadata as JsonObject,
    ...(outputs.filteredContent ? { filteredContent: outputs.filteredContent } : {}),
    ...(outputs.evidence ? { evidence: outputs.evidence } : {}),
    extractionMethod: outputs.extractionMethod,
    ...(outputs.modelUsed ? { modelUsed: outputs.modelUsed } : {}),
  };
}
