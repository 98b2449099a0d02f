import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { convertHtml, convertMarkdown, convertText, type ContentResult } from './content/index.js';
import { limitNesting } from './nesting-guard.js';
import { toSafeJson } from './safe-json.js';
import { buildOutputs, llmExtraction, ragChunks, type LlmConfig } from './outputs.js';
import { buildSectionTree, matchJsonBody, validateExtractionSchema } from './structured/index.js';

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
async function rawJsonApi(body: string, input: PipelineInput, config: PipelineConfig): Promise<PipelineOutput | null> {
  let parsed: JsonValue;
  try {
    parsed = toSafeJson(JSON.parse(body) as JsonValue);
  } catch {
    return null;
  }
  // Only the requested renderings are built; the pretty text is shared by html, markdown, text, json_v2 and rag.
  let pretty: string | undefined;
  const text = () => (pretty ??= JSON.stringify(parsed, null, 2));
  const html = () => `<pre><code class="language-json">${escapeHtml(text())}</code></pre>`;
  const markdown = () => `\`\`\`json\n${text()}\n\`\`\``;
  const render: Record<string, () => JsonValue> = {
    json: () => parsed,
    html,
    markdown,
    text,
    json_v2: () => buildSectionTree(html(), input.url) as unknown as JsonValue,
    rag: () => ragChunks(markdown(), input),
  };
  const formats: Record<string, JsonValue> = {};
  for (const f of input.formats) formats[f] = render[f]?.() ?? null;

  // A schema is matched against the body itself; a prompt goes to the LLM with the body as its content.
  let filteredContent: JsonObject | undefined;
  let evidence: JsonObject | undefined;
  let modelUsed: string | undefined;
  let extractionMethod = 'raw_json_api';
  if (input.extractionSchema) validateExtractionSchema(input.extractionSchema);
  if (input.extractionPrompt) {
    const result = await llmExtraction(text(), input.extractionPrompt, input, config.llm);
    filteredContent = result.data;
    modelUsed = result.model;
    extractionMethod = 'llm';
  } else if (input.extractionSchema) {
    const matched = matchJsonBody(input.extractionSchema, parsed, input.url);
    filteredContent = matched.filtered_content as JsonObject;
    if (input.evidence) evidence = matched.evidence as unknown as JsonObject;
  }
  if (filteredContent && input.jsonIsFiltered && input.formats.includes('json')) formats['json'] = filteredContent;
  return {
    content: shapeContent(formats, input.formats),
    formats,
    title: '',
    metadata: {},
    extractionMethod,
    ...(filteredContent ? { filteredContent } : {}),
    ...(evidence ? { evidence } : {}),
    ...(modelUsed ? { modelUsed } : {}),
  };
}

/** Text types some APIs serve JSON under (raw files, older frameworks); their body is tried as JSON first. */
const JSON_AS_TEXT = new Set(['text/plain', 'text/json', 'text/x-json', 'application/x-json', 'application/javascript', 'text/javascript']);

function looksLikeJson(body: string): boolean {
  const m = /^\s*([[{])/.exec(body.slice(0, 64));
  return m !== null;
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
  const type = input.contentType.toLowerCase();
  if (isJsonType(type) || (JSON_AS_TEXT.has(type) && looksLikeJson(input.body))) {
    const api = await rawJsonApi(input.body, input, config);
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
