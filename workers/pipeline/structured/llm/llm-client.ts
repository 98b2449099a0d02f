import { request, type Dispatcher } from 'undici';
import { TrawlError } from '../../../../common/errors.js';
import { isJsonObject } from '../json-like-values.js';
import type { JsonObject, JsonValue } from '../structured-data-model.js';
import { LlmInvalidJsonError, LlmStatusError, LlmTimeoutError, LlmUnreachableError } from './llm-errors.js';
import { parseModelJson } from './llm-reply.js';
import { validateExtractionPrompt, type PromptEndpoint } from './prompt-limits.js';
import { isStrictCompatible } from './strict-schema.js';

export const DEFAULT_LLM_TIMEOUT_MS = 60_000;
export const DEFAULT_LLM_CONTENT_CHARS = 100_000;

/**
 * An OpenAI-compatible chat-completions provider. The service reads these
 * from TRAWL_LLM_BASE_URL, TRAWL_LLM_API_KEY and TRAWL_LLM_MODEL; the library
 * only takes them as arguments.
 */
export interface LlmConfig {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Whole-call deadline. Default 60 s. */
  timeoutMs?: number;
  /** Page content beyond this many characters is cut before sending. Default 100,000. */
  maxContentChars?: number;
}

export interface LlmExtractionRequest {
  /** The page content to extract from, Markdown preferably. */
  content: string;
  /** The caller's extraction_prompt. */
  prompt?: string | null;
  /** The caller's extraction_schema; asks the provider for structured output. */
  schema?: JsonObject | null;
  /** Context for the model; never fetched. */
  sourceUrl?: string | null;
  /** Which prompt limit applies (2,000 on extract, 4,000 on scrape). Default `scrape`. */
  endpoint?: PromptEndpoint;
}

export interface LlmUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
}

export interface LlmExtractionResult {
  data: JsonValue;
  model_used: string;
  extraction_method: 'llm';
  usage: LlmUsage | null;
}

export interface LlmDeps {
  /** An undici dispatcher (agent, proxy, mock); the global one by default. */
  dispatcher?: Dispatcher;
}

const SYSTEM_PROMPT = [
  'You extract structured data from the content of a web page.',
  'Answer with a single JSON value and nothing else: no prose, no code fences.',
  'Use only facts present in the content; use null for anything it does not state.',
].join(' ');

function truncate(content: string, max: number): { text: string; truncated: boolean } {
  if (content.length <= max) return { text: content, truncated: false };
  let text = content.slice(0, max);
  // Never leave half of a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1);
  return { text, truncated: true };
}

function schemaName(schema: JsonObject): string {
  const title = typeof schema.title === 'string' ? schema.title.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') : '';
  return (title || 'extraction').slice(0, 64);
}

export function buildChatRequest(req: LlmExtractionRequest, config: LlmConfig): JsonObject {
  const { text, truncated } = truncate(req.content, config.maxContentChars ?? DEFAULT_LLM_CONTENT_CHARS);
  const instruction = req.prompt?.trim() || 'Extract the data described by the JSON Schema.';
  const parts = [`Instruction:\n${instruction}`];
  if (req.schema) parts.push(`JSON Schema the answer must follow:\n${JSON.stringify(req.schema)}`);
  if (req.sourceUrl) parts.push(`Source URL: ${req.sourceUrl}`);
  parts.push(`Page content${truncated ? ` (first ${text.length} characters)` : ''}:\n<<<CONTENT\n${text}\nCONTENT>>>`);
  const responseFormat: JsonObject = req.schema
    ? { type: 'json_schema', json_schema: { name: schemaName(req.schema), schema: req.schema, strict: isStrictCompatible(req.schema) } }
    : { type: 'json_object' };
  return {
    model: config.model,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: parts.join('\n\n') },
    ],
    response_format: responseFormat,
    temperature: 0,
  };
}

function transportFailure(err: unknown, signal: AbortSignal, config: LlmConfig, timeoutMs: number): Error {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new LlmTimeoutError(timeoutMs);
  const message = err instanceof Error ? err.message || code || err.name : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return new LlmUnreachableError(config.baseUrl, `${code && !message.includes(code) ? `${code} ` : ''}${message}${cause}`);
}

function providerMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isJsonObject(parsed as JsonValue)) {
      const error = (parsed as JsonObject).error;
      if (isJsonObject(error) && typeof error.message === 'string') return error.message.slice(0, 300);
      if (typeof error === 'string') return error.slice(0, 300);
    }
  } catch {
    // Not JSON: the raw text is the message.
  }
  return body.trim().slice(0, 300);
}

function messageText(content: JsonValue | undefined): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
    return texts === '' ? null : texts;
  }
  return null;
}

function usageOf(value: JsonValue | undefined): LlmUsage | null {
  if (!isJsonObject(value)) return null;
  const n = (v: JsonValue | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { prompt_tokens: n(value.prompt_tokens), completion_tokens: n(value.completion_tokens), total_tokens: n(value.total_tokens) };
}

/**
 * Runs an extraction_prompt (and/or extraction_schema) through an
 * OpenAI-compatible chat-completions API: POST {baseUrl}/chat/completions
 * with a bearer key, structured output when a schema is given, JSON mode
 * otherwise. Throws LlmUnreachableError, LlmTimeoutError, LlmStatusError or
 * LlmInvalidJsonError; a prompt over the endpoint's limit is a VALIDATION_ERROR.
 */
/** A connection closed or reset before the provider answered anything. */
function isClosedBeforeAnswer(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

export async function extractWithLlm(req: LlmExtractionRequest, config: LlmConfig, deps: LlmDeps = {}): Promise<LlmExtractionResult> {
  if (req.prompt !== undefined && req.prompt !== null) validateExtractionPrompt(req.prompt, req.endpoint ?? 'scrape');
  else if (!req.schema) {
    throw new TrawlError('VALIDATION_ERROR', 'LLM extraction needs an extraction_prompt or an extraction_schema', { field: 'extraction_prompt' });
  }
  const timeoutMs = config.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let status = 0;
  let body = '';
  const payload = JSON.stringify(buildChatRequest(req, config));
  // One more try when a pooled connection turns out to be closed before any answer (the provider dropped an idle
  // keep-alive connection as the request went out); any other failure, or a second one, is reported.
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body: payload,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
      });
      status = response.statusCode;
      body = await response.body.text();
      break;
    } catch (err) {
      if (attempt === 1 && !signal.aborted && isClosedBeforeAnswer(err)) continue;
      throw transportFailure(err, signal, config, timeoutMs);
    }
  }
  if (status < 200 || status >= 300) throw new LlmStatusError(status, providerMessage(body));
  let envelope: JsonValue;
  try {
    envelope = JSON.parse(body) as JsonValue;
  } catch {
    throw new LlmInvalidJsonError('the response body is not JSON', body.slice(0, 200));
  }
  const choice = isJsonObject(envelope) && Array.isArray(envelope.choices) ? envelope.choices[0] : undefined;
  const message = isJsonObject(choice) && isJsonObject(choice.message) ? choice.message : null;
  if (!message) throw new LlmInvalidJsonError('the response has no choices[0].message', body.slice(0, 200));
  if (typeof message.refusal === 'string' && message.refusal !== '') {
    throw new LlmInvalidJsonError(`the model refused: ${message.refusal.slice(0, 200)}`, message.refusal.slice(0, 200));
  }
  const text = messageText(message.content);
  if (text === null) throw new LlmInvalidJsonError('the message has no text content', body.slice(0, 200));
  const data = parseModelJson(text);
  if (data === undefined) throw new LlmInvalidJsonError('the message is not JSON', text.slice(0, 200));
  return {
    data,
    model_used: isJsonObject(envelope) && typeof envelope.model === 'string' ? envelope.model : config.model,
    extraction_method: 'llm',
    usage: usageOf(isJsonObject(envelope) ? envelope.usage : undefined),
  };
}
