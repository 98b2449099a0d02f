import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { convertMarkdown, convertPage, convertText, type ContentResult } from './content/index.js';
import { escapeHtml } from './document-html.js';
import { toSafeJson } from './safe-json.js';
import { askLlm, type LlmConfig, type LlmRequest } from './llm-step.js';
import { buildOutputs, llmRequest, ragChunks } from './outputs.js';
import { shapeContent } from './content-shape.js';
import { buildSectionTree, matchJsonBody, validateExtractionSchema } from './structured/index.js';
import type { ExtractedPage } from '../discovery/link-extractor.js';
import { textStart, wholeText, type DocumentText } from '../html/document-text.js';

export interface PipelineConfig {
  llm: LlmConfig;
}

export interface PipelineInput {
  /** The document's text: whole, or in pieces as a page decoded by a fetch (document-text.ts). */
  body: DocumentText;
  /** A MIME type from a fetch, or the extract endpoint's html / text / markdown. */
  contentType: string;
  url: string;
  formats: readonly string[];
  onlyMainContent: boolean;
  /** A whole page leaves out the consent banners it names as such (advanced.remove_cookie_banners). */
  removeCookieBanners?: boolean;
  extractionSchema?: JsonObject | undefined;
  extractionProfile?: string | undefined;
  extractionPrompt?: string | undefined;
  evidence?: boolean;
  rag?: { chunkSize?: number; overlap?: number };
  /** Which prompt limit applies. */
  endpoint?: 'scrape' | 'extract';
  /** The extract endpoint answers a schema or prompt in its json format. */
  jsonIsFiltered?: boolean;
  /** Also read an HTML page's links for discovery (a crawl), in the conversion's own parse. */
  links?: boolean;
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

/**
 * The CPU part's output; `llm` is set when an extraction_prompt still has to be asked (see completeWithLlm);
 * `links` when they were asked for and the document is an HTML page.
 */
export type ProcessedDocument = PipelineOutput & { llm?: LlmRequest; links?: ExtractedPage };

function isJsonType(contentType: string): boolean {
  return contentType === 'application/json' || contentType.endsWith('+json') || contentType === 'json';
}


/** SPEC 2.3 rule 1: a JSON API body is parsed into content.json; html is the JSON shown, not for parsing. */
function rawJsonApi(body: string, input: PipelineInput): ProcessedDocument | null {
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
  let llm: LlmRequest | undefined;
  if (input.extractionSchema) validateExtractionSchema(input.extractionSchema);
  if (input.extractionPrompt) {
    llm = llmRequest(text(), input.extractionPrompt, input);
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
    extractionMethod: 'raw_json_api',
    ...(filteredContent ? { filteredContent } : {}),
    ...(evidence ? { evidence } : {}),
    ...(llm ? { llm } : {}),
  };
}

/** Text types some APIs serve JSON under (raw files, older frameworks); their body is tried as JSON first. */
const JSON_AS_TEXT = new Set(['text/plain', 'text/json', 'text/x-json', 'application/x-json', 'application/javascript', 'text/javascript']);

function looksLikeJson(body: DocumentText): boolean {
  const m = /^\s*([[{])/.exec(textStart(body, 64));
  return m !== null;
}

function convert(input: PipelineInput): { result: ContentResult; html: DocumentText | null } {
  const type = input.contentType.toLowerCase();
  if (type === 'markdown' || type === 'text/markdown') return { result: convertMarkdown(wholeText(input.body), input.url), html: null };
  if (type === 'text' || type === 'text/plain') return { result: convertText(wholeText(input.body)), html: null };
  // A page nested past the limit is read, and handed on to the other outputs, with the tags past it removed.
  const { result, source } = convertPage(input.body, {
    url: input.url,
    onlyMainContent: input.onlyMainContent,
    removeCookieBanners: input.removeCookieBanners === true,
    links: input.links === true,
  });
  return { result, html: source };
}

/**
 * Turns a document into every requested output: the CPU-bound part, run on
 * a pipeline thread. An extraction_prompt is prepared here and asked after
 * (completeWithLlm), off the thread.
 */
export function processDocument(input: PipelineInput): ProcessedDocument {
  const type = input.contentType.toLowerCase();
  if (isJsonType(type) || (JSON_AS_TEXT.has(type) && looksLikeJson(input.body))) {
    const api = rawJsonApi(wholeText(input.body), input);
    if (api) return api;
  }
  const { result, html } = convert(input);
  const outputs = buildOutputs({ input, content: result, sourceHtml: html });
  return {
    content: shapeContent(outputs.formats, input.formats),
    formats: outputs.formats,
    title: result.title,
    metadata: result.metadata as JsonObject,
    ...(outputs.filteredContent ? { filteredContent: outputs.filteredContent } : {}),
    ...(outputs.evidence ? { evidence: outputs.evidence } : {}),
    extractionMethod: outputs.extractionMethod,
    ...(outputs.llm ? { llm: outputs.llm } : {}),
    ...(result.links ? { links: result.links } : {}),
  };
}

/** The LLM's answer to a prepared extraction_prompt, merged into the output. */
export async function completeWithLlm(processed: ProcessedDocument, requested: readonly string[], llm: LlmConfig): Promise<PipelineOutput> {
  const { llm: request, ...output } = processed;
  if (!request) return output;
  const answer = await askLlm(request, llm);
  const formats = request.answersJsonFormat ? { ...output.formats, json: answer.data } : output.formats;
  return { ...output, formats, content: shapeContent(formats, requested), filteredContent: answer.data, extractionMethod: 'llm', modelUsed: answer.model };
}

/** The whole pipeline in this thread: the CPU part, then the LLM when a prompt asks for it. */
export async function runPipeline(input: PipelineInput, config: PipelineConfig): Promise<PipelineOutput> {
  return completeWithLlm(processDocument(input), input.formats, config.llm);
}
