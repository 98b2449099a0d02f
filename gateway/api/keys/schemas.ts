import { z } from 'zod';
import { API_KEY_NAME_MAX_CHARS, API_KEY_USAGE_MAX_DAYS, API_KEY_USAGE_MAX_PAGE_SIZE } from '../../../common/limits.js';

const Name = z
  .string()
  .min(1)
  .max(API_KEY_NAME_MAX_CHARS)
  .refine((s) => s.trim() !== '', 'must not be blank')
  .meta({ description: `A label for the key, 1 to ${API_KEY_NAME_MAX_CHARS} characters.` });

const Environment = z.enum(['live', 'test']);
const ResetPeriod = z.enum(['daily', 'weekly', 'monthly']);
const Timestamp = z.string().meta({ description: 'ISO 8601, UTC.' });
const Count = z.number().int();

export const CreateApiKeyRequest = z
  .object({
    name: Name,
    environment: Environment.default('live').meta({
      description: 'live (default) or test: test keys run free of charge, within a daily allowance (see the API keys section).',
    }),
  })
  .strict()
  .meta({ id: 'CreateApiKeyRequest' });

export const UpdateApiKeyRequest = z.object({ name: Name }).strict().meta({ id: 'UpdateApiKeyRequest' });

export const ApiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key_prefix: z.string().meta({ description: 'The first 12 characters of the key, e.g. sk_live_AbCd.' }),
    scopes: z.array(z.string()),
    environment: Environment,
    created_at: Timestamp,
    last_used_at: Timestamp.nullable().meta({ description: 'Last use, to the minute; null when never used.' }),
  })
  .meta({ id: 'ApiKey' });

export const NewApiKey = ApiKey.extend({
  key: z.string().meta({ description: 'The whole key. Shown only in this answer: store it now.' }),
}).meta({ id: 'NewApiKey' });

export const ApiKeyList = z.object({ api_keys: z.array(ApiKey), total: Count }).meta({ id: 'ApiKeyList' });

export const DecryptedApiKey = z.object({ key: z.string() }).meta({ id: 'DecryptedApiKey' });

export const KeyIdParam = z.object({ key_id: z.uuid().meta({ description: 'The key id.' }) });

export const ApiKeyLimitsInput = z
  .object({
    budget_limit_microcents: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: 'Most the key may spend per period, in microcents (1 USD = 1,000,000).' }),
    request_limit: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().meta({ description: 'Most requests the key may make per period.' }),
    reset_period: ResetPeriod.default('monthly').meta({ description: 'UTC calendar day, ISO week (from Monday) or month; default monthly.' }),
    enabled: z.boolean().default(true),
  })
  .strict()
  .refine((l) => l.budget_limit_microcents !== undefined || l.request_limit !== undefined, 'set budget_limit_microcents, request_limit or both')
  .meta({ id: 'ApiKeyLimitsInput' });

export const ApiKeyLimitsRecord = z
  .object({
    api_key_id: z.uuid(),
    api_key_name: z.string(),
    limits: z
      .object({
        budget_limit_microcents: Count.nullable(),
        request_limit: Count.nullable(),
        reset_period: ResetPeriod,
        enabled: z.boolean(),
        current_period_start: Timestamp,
        spent_microcents: Count.meta({ description: 'Spend in the current period: open requests at what they reserved, ended ones at what they were charged.' }),
        request_count: Count.meta({ description: 'Requests made with the key in the current period, counted while it has a request limit.' }),
      })
      .nullable()
      .meta({ id: 'ApiKeyLimits', description: 'Null when the key has no limits.' }),
    has_limits: z.boolean(),
  })
  .meta({ id: 'ApiKeyLimitsRecord' });

const Days = z.coerce
  .number()
  .int()
  .min(1)
  .max(API_KEY_USAGE_MAX_DAYS)
  .default(30)
  .meta({ description: `The window: the last 1 to ${API_KEY_USAGE_MAX_DAYS} days (default 30).` });

export const UsageQuery = z.object({ days: Days }).strict();

export const RequestsQuery = z
  .object({
    days: Days,
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    page_size: z.coerce.number().int().min(1).max(API_KEY_USAGE_MAX_PAGE_SIZE).default(50).meta({ description: `1 to ${API_KEY_USAGE_MAX_PAGE_SIZE}, default 50.` }),
    status: z.enum(['success', 'failed']).optional().meta({ description: 'success: status below 400; failed: 400 and above.' }),
    tier: z.string().max(8).optional().meta({ description: 'Only requests that ran on this tier, e.g. 1.' }),
    domain: z.string().max(253).optional().meta({ description: 'Only requests whose target domain contains this text.' }),
  })
  .strict();

export const TimeseriesQuery = z
  .object({ days: Days, granularity: z.enum(['hour', 'day']).default('day').meta({ description: 'Bucket size, UTC; default day.' }) })
  .strict();

export const ApiKeyUsage = z
  .object({
    api_key_id: z.uuid(),
    api_key_name: z.string(),
    total_requests: Count,
    successful_requests: Count,
    failed_requests: Count,
    total_spend_microcents: Count,
  })
  .meta({ id: 'ApiKeyUsage' });

export const ApiKeyUsageByTier = z
  .object({
    api_key_id: z.uuid(),
    days: Count,
    tiers: z.array(z.object({ tier: z.string(), requests: Count, spend_microcents: Count }).meta({ id: 'ApiKeyTierUsage' })),
  })
  .meta({ id: 'ApiKeyUsageByTier' });

export const ApiKeyUsageErrors = z
  .object({
    api_key_id: z.uuid(),
    days: Count,
    total_errors: Count,
    errors: z.array(
      z
        .object({
          error_code: z.string().meta({ description: 'The error code, or HTTP_<status> for a failure without one.' }),
          count: Count,
          last_seen: Timestamp,
        })
        .meta({ id: 'ApiKeyErrorUsage' }),
    ),
  })
  .meta({ id: 'ApiKeyUsageErrors' });

export const ApiKeyRequestPage = z
  .object({
    api_key_id: z.uuid(),
    total: Count,
    page: Count,
    page_size: Count,
    total_pages: Count,
    items: z.array(
      z
        .object({
          request_id: z.string(),
          timestamp: Timestamp,
          method: z.string(),
          route: z.string(),
          status: Count,
          error_code: z.string().nullable(),
          job_id: z.string().nullable(),
          domain: z.string().nullable(),
          tier: z.string().nullable(),
          spend_microcents: Count,
          duration_ms: Count,
        })
        .meta({ id: 'ApiKeyLoggedRequest' }),
    ),
  })
  .meta({ id: 'ApiKeyRequestPage' });

export const ApiKeyTimeseries = z
  .object({
    api_key_id: z.uuid(),
    days: Count,
    granularity: z.enum(['hour', 'day']),
    data: z.array(
      z
        .object({ bucket: Timestamp.meta({ description: 'Start of the bucket.' }), requests: Count, errors: Count, spend_microcents: Count })
        .meta({ id: 'ApiKeyTimeseriesBucket' }),
    ),
  })
  .meta({ id: 'ApiKeyTimeseries' });
