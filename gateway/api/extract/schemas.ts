import { z } from 'zod';
import { MAX_EXTRACT_CONTENT_BYTES, MAX_EXTRACT_PROMPT_CHARS, sizeLabel } from '../../../common/limits.js';
import { ExtractionSchema, formatList, HttpUrl, promptText, RagOptions } from '../shared/fields.js';

export const PROFILES = ['auto', 'product', 'article', 'job_posting', 'faq', 'recipe', 'event'] as const;

export const ExtractRequest = z
  .object({
    content: z.string().meta({
      description: `The document, at most ${sizeLabel(MAX_EXTRACT_CONTENT_BYTES)} (UTF-8); blank or larger content answers 422.`,
    }),
    content_type: z.enum(['html', 'text', 'markdown']).default('html'),
    extraction_schema: ExtractionSchema.optional(),
    extraction_profile: z.enum(PROFILES).optional(),
    extraction_prompt: promptText(MAX_EXTRACT_PROMPT_CHARS).optional().meta({ description: 'Triggers LLM extraction.' }),
    formats: formatList(['json']),
    source_url: HttpUrl.optional().meta({ description: 'Context only (resolves relative links); never fetched.' }),
    evidence: z.boolean().default(false).meta({ description: 'Adds where each extracted field came from.' }),
    rag_options: RagOptions.optional(),
  })
  .strict()
  .meta({ id: 'ExtractRequest' });

export const ExtractResult = z
  .object({
    extract_id: z.uuid(),
    formats: z.record(z.string(), z.unknown()).meta({
      description: 'Keyed by requested format. With extraction_schema or extraction_prompt, json is the extracted object.',
    }),
    credits_used: z.number().int().meta({ description: 'Microcents: 2,500, or 5,000 above 200,000 characters.' }),
    model_used: z.string().nullable(),
    extraction_method: z.enum(['algorithmic', 'llm', 'playbook', 'lossless']),
    content_size_chars: z.number().int(),
    filtered_content: z.record(z.string(), z.unknown()).optional(),
    evidence: z.record(z.string(), z.unknown()).optional(),
    version: z.literal('v1'),
  })
  .meta({ id: 'ExtractResult' });
