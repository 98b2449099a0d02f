import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { TrawlError } from '../../common/errors.js';
import { extractWithLlm } from './structured/index.js';
import type { PromptEndpoint } from './structured/llm/prompt-limits.js';

export interface LlmConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The whole LLM call, on its own clock: it does not count against the processing budget. */
  timeoutMs: number;
}

/**
 * What an extraction_prompt sends to the LLM, prepared with the document on
 * a pipeline thread. The call itself is network waiting, so it runs on the
 * event loop once the thread is done.
 */
export interface LlmRequest {
  content: string;
  prompt: string;
  schema: JsonObject | null;
  sourceUrl: string | null;
  endpoint: PromptEndpoint;
  /** The extract endpoint answers the prompt in its json format. */
  answersJsonFormat: boolean;
}

/** An LLM answer as an object: a bare value or list is wrapped as `{ value }`. */
const asObject = (value: JsonValue): JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : { value };

/** The answer to `extraction_prompt` through the configured LLM, with the model that gave it. */
export async function askLlm(request: LlmRequest, llm: LlmConfig): Promise<{ data: JsonObject; model: string }> {
  if (!llm.baseUrl) throw new TrawlError('SERVICE_UNAVAILABLE', 'LLM extraction is not configured on this service (TRAWL_LLM_BASE_URL)');
  const result = await extractWithLlm(
    { content: request.content, prompt: request.prompt, schema: request.schema, sourceUrl: request.sourceUrl, endpoint: request.endpoint },
    llm,
  );
  return { data: asObject(result.data as JsonValue), model: result.model_used };
}
