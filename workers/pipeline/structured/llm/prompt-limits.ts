import { TrawlError } from '../../../../common/errors.js';
import { MAX_EXTRACT_PROMPT_CHARS, MAX_SCRAPE_PROMPT_CHARS } from '../../../../common/limits.js';

/** SPEC 2.11 and 8.4: extraction_prompt is limited to 2,000 characters on Extract and 4,000 on scrape. */
export const EXTRACTION_PROMPT_LIMITS = { extract: MAX_EXTRACT_PROMPT_CHARS, scrape: MAX_SCRAPE_PROMPT_CHARS } as const;
export type PromptEndpoint = keyof typeof EXTRACTION_PROMPT_LIMITS;

/**
 * Throws a TrawlError VALIDATION_ERROR (HTTP 400, `details.field` =
 * `extraction_prompt`) for a prompt that is not a string, is blank, or is
 * longer than the endpoint's limit (counted in Unicode code points).
 */
export function validateExtractionPrompt(prompt: unknown, endpoint: PromptEndpoint, field = 'extraction_prompt'): void {
  if (typeof prompt !== 'string') throw new TrawlError('VALIDATION_ERROR', `${field} must be a string`, { field });
  if (prompt.trim() === '') throw new TrawlError('VALIDATION_ERROR', `${field} must not be blank`, { field });
  const limit = EXTRACTION_PROMPT_LIMITS[endpoint];
  const length = [...prompt].length;
  if (length > limit) {
    throw new TrawlError('VALIDATION_ERROR', `${field} is ${length} characters; the limit is ${limit}`, {
      field,
      length,
      limit,
    });
  }
}
