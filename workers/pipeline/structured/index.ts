/**
 * Structured outputs of the content pipeline: the `json` format (embedded
 * structured data plus profile fields), extraction profiles,
 * extraction_schema matching, the `json_v2` section tree, `rag` chunks and
 * LLM extraction for extraction_prompt. Shapes and rules: docs/extraction.md.
 */
import { PROFILES } from './profiles/profile-registry.js';
import type { ProfileName } from './profiles/profile-model.js';

export type { HtmlInput } from './document-input.js';
export type {
  Entity,
  EntitySource,
  Evidence,
  JsonObject,
  JsonValue,
  MarkupItem,
  MarkupValue,
  SourceKind,
  StructuredData,
  StructuredSources,
  TagMap,
} from './structured-data-model.js';
export { extractStructuredData } from './structured-data.js';
export { buildJsonOutput, type JsonFormatOptions, type JsonFormatOutput } from './json-output.js';

export {
  PROFILE_NAMES,
  isProfileRequest,
  type ProfileName,
  type ProfileOptions,
  type ProfileRequest,
  type ProfileResult,
} from './profiles/profile-model.js';
export { applyProfile } from './profiles/apply-profile.js';
export { detectProfile, type ProfileDetection } from './profiles/profile-detection.js';

/** The fields of each profile, in output order. */
export const PROFILE_FIELDS: Readonly<Record<ProfileName, readonly string[]>> = Object.fromEntries(
  Object.entries(PROFILES).map(([name, def]) => [name, def.fields]),
) as Record<ProfileName, readonly string[]>;

export { matchJsonBody, matchSchema, profileForSchema, type SchemaMatchOptions, type SchemaMatchResult } from './schema/schema-matcher.js';
export { MAX_EXTRACTION_SCHEMA_BYTES, validateExtractionSchema } from '../../../common/extraction-schema.js';

export {
  buildSectionTree,
  type Section,
  type SectionLink,
  type SectionList,
  type SectionTable,
  type SectionTree,
} from './section-tree.js';

export {
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  chunkMarkdown,
  type ChunkOptions,
  type RagChunk,
} from './rag/markdown-chunker.js';
export { cl100kTokenizer, type Tokenizer } from './rag/tokenizer.js';

export {
  DEFAULT_LLM_CONTENT_CHARS,
  DEFAULT_LLM_TIMEOUT_MS,
  buildChatRequest,
  extractWithLlm,
  type LlmConfig,
  type LlmDeps,
  type LlmExtractionRequest,
  type LlmExtractionResult,
  type LlmUsage,
} from './llm/llm-client.js';
export {
  LlmInvalidJsonError,
  LlmProviderError,
  LlmStatusError,
  LlmTimeoutError,
  LlmUnreachableError,
  isLlmInvalidJson,
  isLlmStatusError,
  isLlmTimeout,
  isLlmUnreachable,
} from './llm/llm-errors.js';
export { EXTRACTION_PROMPT_LIMITS, validateExtractionPrompt, type PromptEndpoint } from './llm/prompt-limits.js';
