import { TrawlError, type ErrorCode } from '../../../../common/errors.js';

/** Base of the failures talking to the LLM provider; `retryable` says whether trying again may help. */
export abstract class LlmProviderError extends TrawlError {
  abstract readonly retryable: boolean;

  protected constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = new.target.name;
  }
}

/** The provider could not be reached: refused, reset, DNS or TLS failure. */
export class LlmUnreachableError extends LlmProviderError {
  readonly retryable = true;

  constructor(baseUrl: string, cause: string) {
    super('UPSTREAM_ERROR', `The LLM provider at ${baseUrl} is unreachable: ${cause}`, { provider_error: cause });
  }
}

/** The provider did not answer within the configured timeout. */
export class LlmTimeoutError extends LlmProviderError {
  readonly retryable = true;

  constructor(timeoutMs: number) {
    super('TIMEOUT', `The LLM provider did not answer within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
  }
}

/** The provider answered with a non-2xx status. */
export class LlmStatusError extends LlmProviderError {
  readonly retryable: boolean;
  readonly status: number;

  constructor(status: number, providerMessage: string) {
    super('UPSTREAM_ERROR', `The LLM provider answered HTTP ${status}${providerMessage ? `: ${providerMessage}` : ''}`, {
      provider_status: status,
      provider_message: providerMessage,
    });
    this.status = status;
    this.retryable = status === 408 || status === 429 || status >= 500;
  }
}

/** The provider's answer, or the model's message in it, is not the JSON asked for. */
export class LlmInvalidJsonError extends LlmProviderError {
  readonly retryable = false;

  constructor(reason: string, excerpt: string) {
    super('EXTRACTION_FAILED', `The LLM provider returned unusable output: ${reason}`, { excerpt });
  }
}

export const isLlmUnreachable = (e: unknown): e is LlmUnreachableError => e instanceof LlmUnreachableError;
export const isLlmTimeout = (e: unknown): e is LlmTimeoutError => e instanceof LlmTimeoutError;
export const isLlmStatusError = (e: unknown): e is LlmStatusError => e instanceof LlmStatusError;
export const isLlmInvalidJson = (e: unknown): e is LlmInvalidJsonError => e instanceof LlmInvalidJsonError;
