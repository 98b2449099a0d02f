import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import type { ContentResult } from './content/index.js';
import type { PipelineInput } from './index.js';
import type { LlmRequest } from './llm-step.js';
import { wholeText, type DocumentText } from '../html/document-text.js';
import {
  applyProfile,
  buildSectionTree,
  chunkMarkdown,
  extractStructuredData,
  isProfileRequest,
  matchSchema,
  profileForSchema,
  validateExtractionSchema,
  type ProfileRequest,
  type StructuredData,
} from './structured/index.js';

export interface Outputs {
  formats: Record<string, JsonValue>;
  filteredContent?: JsonObject;
  evidence?: JsonObject;
  extractionMethod: string;
  /** Set when an extraction_prompt asks the LLM: the call runs after the CPU part, on the event loop. */
  llm?: LlmRequest;
}

/** The rag format of some Markdown, with the request's chunk size and overlap. */
export function ragChunks(markdown: string, input: PipelineInput): JsonValue {
  return chunkMarkdown(markdown, {
    sourceUrl: input.url || null,
    ...(input.rag?.chunkSize ? { chunkSize: input.rag.chunkSize } : {}),
    ...(input.rag?.overlap !== undefined ? { overlap: input.rag.overlap } : {}),
  }) as unknown as JsonValue;
}

/** What an extraction_prompt sends to the LLM about this content. */
export function llmRequest(content: string, prompt: string, input: PipelineInput): LlmRequest {
  return {
    content,
    prompt,
    schema: input.extractionSchema ?? null,
    sourceUrl: input.url || null,
    endpoint: input.endpoint ?? 'scrape',
    answersJsonFormat: !!input.jsonIsFiltered && input.formats.includes('json'),
  };
}

/**
 * The profiles' options with the page's main text read only when a profile
 * asks for it (a class, not an object literal with a getter: see RenderedPage
 * in content/index.ts).
 */
class MainTextOf {
  constructor(private readonly content: ContentResult) {}

  get mainText(): string {
    return this.content.text;
  }
}

/**
 * Builds every requested format from converted content, plus schema matching
 * and the request for LLM extraction. Structured data is read once and
 * shared by the json format, the profile and the schema matcher.
 */
export function buildOutputs(job: { input: PipelineInput; content: ContentResult; sourceHtml: DocumentText | null }): Outputs {
  const { input, content } = job;
  const requested = new Set(input.formats);
  const profile: ProfileRequest = input.extractionProfile && isProfileRequest(input.extractionProfile) ? input.extractionProfile : 'auto';
  const schema = input.extractionSchema;
  if (schema) validateExtractionSchema(schema);

  let data: StructuredData | null = null;
  const structured = () => (data ??= extractStructuredData(job.sourceHtml !== null ? wholeText(job.sourceHtml) : content.html, input.url));
  const profileOptions = new MainTextOf(content);
  // With `auto` and a schema, the schema's field names help pick the profile when the page itself says little.
  const profileResult =
    requested.has('json') || schema
      ? applyProfile(profile === 'auto' && schema ? profileForSchema(schema, structured()) : profile, structured(), profileOptions)
      : undefined;

  const formats: Record<string, JsonValue> = {};
  for (const format of input.formats) {
    switch (format) {
      case 'markdown':
        formats[format] = content.markdown;
        break;
      case 'text':
        formats[format] = content.text;
        break;
      case 'html':
        formats[format] = content.html;
        break;
      case 'json':
        formats[format] = { type: profileResult!.type, fields: profileResult!.fields, sources: structured().sources } as unknown as JsonValue;
        break;
      case 'json_v2':
        formats[format] = buildSectionTree(content.html, input.url) as unknown as JsonValue;
        break;
      case 'rag':
        formats[format] = ragChunks(content.markdown, input);
        break;
      default:
        throw new TrawlError('VALIDATION_ERROR', `unknown format "${format}"`);
    }
  }

  let filteredContent: JsonObject | undefined;
  let evidence: JsonObject | undefined;
  let llm: LlmRequest | undefined;

  if (input.extractionPrompt) {
    llm = llmRequest(content.markdown, input.extractionPrompt, input);
  } else if (schema) {
    // A schema always has its profile read above.
    const matched = matchSchema(schema, structured(), { profile, profileResult: profileResult! });
    filteredContent = matched.filtered_content as JsonObject;
    if (input.evidence) evidence = matched.evidence as unknown as JsonObject;
  }
  // On the extract endpoint the json format is the answer to the caller's schema or prompt.
  if (filteredContent && input.jsonIsFiltered && requested.has('json')) formats['json'] = filteredContent;

  return {
    formats,
    extractionMethod: 'algorithmic',
    ...(filteredContent ? { filteredContent } : {}),
    ...(evidence ? { evidence } : {}),
    ...(llm ? { llm } : {}),
  };
}
