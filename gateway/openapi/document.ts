import { z } from 'zod';
import { ErrorEnvelope } from '../schemas/common.js';
import { HealthStatus, Liveness, Readiness, ServiceStatus } from '../schemas/health.js';
import { ExtractRequest, ExtractResult } from '../schemas/extract.js';
import { JobRecord } from '../schemas/jobs.js';
import {
  EstimateResult,
  LegacyJsRequest,
  LegacyLightRequest,
  LegacyOcrRequest,
  LegacyPdfRequest,
  ScrapeAccepted,
  ScrapeRequest,
  ScrapeResult,
} from '../schemas/scrape.js';

type JsonSchema = Record<string, unknown>;

/**
 * Converts a zod schema to JSON Schema 2020-12 (the dialect OpenAPI 3.1
 * uses), hoisting schemas that carry an id into components.
 */
function schemaOf(schema: z.ZodType, components: Record<string, JsonSchema>, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  const defs = json.$defs ?? {};
  delete json.$defs;
  delete json.$schema;
  for (const [name, def] of Object.entries(defs)) components[name] ??= rewriteRefs(def) as JsonSchema;
  const id = (schema.meta() as { id?: string } | undefined)?.id;
  const body = rewriteRefs(json) as JsonSchema;
  if (id) {
    delete body['id'];
    components[id] ??= body;
    return { $ref: `#/components/schemas/${id}` };
  }
  return body;
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });

export function buildOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const ref = (schema: z.ZodType, io: 'input' | 'output' = 'output') => schemaOf(schema, components, io);
  const error = (description: string) => ({ description, ...json(ref(ErrorEnvelope)) });
  const authErrors = {
    '401': error('MISSING_API_KEY or INVALID_API_KEY'),
    '500': error('INTERNAL_ERROR'),
  };

  const deprecationHeaders = {
    Deprecation: { description: 'Always "true"', schema: { type: 'string' } },
    Sunset: { description: 'HTTP date of removal', schema: { type: 'string' } },
    Link: { description: 'rel="sunset" link to this documentation', schema: { type: 'string' } },
  };
  const legacyPaths = Object.fromEntries(
    (
      [
        ['js', LegacyJsRequest, 'mode "js" with advanced.render_js (needs the browser pool)'],
        ['light', LegacyLightRequest, 'mode "html"'],
        ['ocr', LegacyOcrRequest, 'mode "ocr" (needs the OCR pool)'],
        ['pdf', LegacyPdfRequest, 'mode "pdf" (needs the PDF pool)'],
      ] as const
    ).map(([name, schema, maps]) => [
      `/api/v1/scrape/${name}`,
      {
        post: {
          operationId: `legacyScrape_${name}`,
          summary: `Deprecated: use POST /api/v1/scrape`,
          description:
            `Runs one unified scrape with ${maps}. Every answer carries Deprecation, Sunset and Link headers and a ` +
            '`warnings` array with a DEPRECATED_ENDPOINT entry.',
          deprecated: true,
          tags: ['Deprecated'],
          security: [{ ApiKey: [] }],
          requestBody: { required: true, ...json(ref(schema, 'input')) },
          responses: {
            '200': { description: 'The scrape result plus warnings', headers: deprecationHeaders, ...json(ref(ScrapeResult)) },
            '202': { description: 'Accepted; poll poll_url', headers: deprecationHeaders, ...json(ref(ScrapeAccepted)) },
            '400': error('VALIDATION_ERROR'),
            '503': error('SERVICE_UNAVAILABLE when the mode needs a pool this deployment does not run'),
            ...authErrors,
          },
        },
      },
    ]),
  );

  const paths = {
    '/api/v1/scrape': {
      post: {
        operationId: 'scrape',
        summary: 'Scrape one URL',
        description:
          'Fetches a page through the fetch tiers and converts it to the requested formats. With sync=true (default) the call ' +
          'holds until the job ends or the 85-second safe deadline passes; past it, or when a slow tier is predicted, it answers ' +
          '202 with a poll URL. With sync=false it always answers 202.',
        tags: ['Scrape'],
        security: [{ ApiKey: [] }],
        requestBody: { required: true, ...json(ref(ScrapeRequest, 'input')) },
        responses: {
          '200': {
            description: 'The scrape result',
            headers: {
              'X-Service-Credits': { description: 'Credits charged for this request', schema: { type: 'number' } },
              'X-Service-Credits-Remaining': { description: 'Balance left, in credits', schema: { type: 'number' } },
            },
            ...json(ref(ScrapeResult)),
          },
          '202': { description: 'Accepted; poll poll_url', ...json(ref(ScrapeAccepted)) },
          '400': error('VALIDATION_ERROR, EXCEEDS_COST_LIMIT or URL_NOT_ALLOWED'),
          '402': error('INSUFFICIENT_CREDITS (details: required_credits, available_credits, estimated_tier, job_id) or PAYWALL_DETECTED'),
          '403': error('BLOCKED_BY_ANTIBOT or CHALLENGE_DETECTED (refunded)'),
          '413': error('CONTENT_TOO_LARGE (page over 10 MB, refunded) or PAYLOAD_TOO_LARGE (request body over 1 MB)'),
          '415': error('UNSUPPORTED_CONTENT_TYPE (refunded)'),
          '422': error('TARGET_NOT_FOUND, EXTRACTION_FAILED or SCRAPE_FAILED (refunded)'),
          '503': error('NETWORK_ERROR or TARGET_UNAVAILABLE (refunded), or SERVICE_UNAVAILABLE'),
          '504': error('TIMEOUT (refunded)'),
          ...authErrors,
        },
      },
    },
    '/api/v1/scrape/estimate': {
      post: {
        operationId: 'estimateScrape',
        summary: 'Price a scrape without running it',
        description:
          'Plans the tiers the request would try (mode, render_js, cost_controls) and answers the price of the first tier and ' +
          'of the most expensive one (the reservation). Nothing is charged or fetched.',
        tags: ['Scrape'],
        security: [{ ApiKey: [] }],
        requestBody: { required: true, ...json(ref(ScrapeRequest, 'input')) },
        responses: {
          '200': { description: 'The estimate', ...json(ref(EstimateResult)) },
          '400': error('VALIDATION_ERROR or EXCEEDS_COST_LIMIT'),
          ...authErrors,
        },
      },
    },
    ...legacyPaths,
    '/api/v1/jobs/{job_id}': {
      get: {
        operationId: 'getJob',
        summary: 'Poll a scrape job',
        tags: ['Scrape'],
        security: [{ ApiKey: [] }],
        parameters: [{ name: 'job_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: {
          '200': { description: 'The job record', ...json(ref(JobRecord)) },
          '400': error('VALIDATION_ERROR (job_id is not a UUID)'),
          '404': error("NOT_FOUND (unknown job, or another account's)"),
          ...authErrors,
        },
      },
    },
    '/api/v1/extract': {
      post: {
        operationId: 'extract',
        summary: 'Extract structured data from content you supply',
        description:
          'Runs the content pipeline on caller-supplied HTML, text or Markdown; nothing is fetched. Synchronous. ' +
          'Costs 2,500 microcents, 5,000 above 200,000 characters. With extraction_schema the page data is matched to your schema ' +
          '(aliases, nesting, type coercion); with extraction_prompt an LLM extracts it.',
        tags: ['Extract'],
        security: [{ ApiKey: [] }],
        requestBody: { required: true, ...json(ref(ExtractRequest, 'input')) },
        responses: {
          '200': { description: 'The extraction', ...json(ref(ExtractResult)) },
          '400': error('VALIDATION_ERROR (including schemas over 64 KB, prompts over 2,000 characters)'),
          '402': error('INSUFFICIENT_CREDITS'),
          '413': error('PAYLOAD_TOO_LARGE (request body over 12 MB)'),
          '422': error('CONTENT_BLANK, CONTENT_OVER_LIMIT (over 5 MB) or EXTRACTION_FAILED (refunded)'),
          '502': error('UPSTREAM_ERROR: the LLM provider failed (refunded)'),
          '503': error('SERVICE_UNAVAILABLE: LLM extraction is not configured'),
          '504': error('TIMEOUT (refunded)'),
          ...authErrors,
        },
      },
    },
    '/api/v1/health': {
      get: { operationId: 'health', summary: 'Health', tags: ['Health'], responses: { '200': { description: 'Status', ...json(ref(HealthStatus)) } } },
    },
    '/health-check': {
      get: {
        operationId: 'healthCheck',
        summary: 'Health for external probes',
        tags: ['Health'],
        responses: {
          '200': { description: 'Healthy', ...json(ref(HealthStatus)) },
          '503': { description: 'Database or cache unhealthy', ...json(ref(HealthStatus)) },
        },
      },
    },
    '/api/v1/health/ready': {
      get: {
        operationId: 'ready',
        summary: 'Readiness (database and cache)',
        tags: ['Health'],
        responses: { '200': { description: 'Ready', ...json(ref(Readiness)) }, '503': { description: 'Not ready', ...json(ref(Readiness)) } },
      },
    },
    '/api/v1/health/live': {
      get: { operationId: 'live', summary: 'Liveness, no dependency checks', tags: ['Health'], responses: { '200': { description: 'Alive', ...json(ref(Liveness)) } } },
    },
    '/api/v1/status': {
      get: {
        operationId: 'status',
        summary: 'Status of the API, database, cache, queue, analytics and workers',
        tags: ['Health'],
        responses: {
          '200': { description: 'Operational or degraded', ...json(ref(ServiceStatus)) },
          '503': { description: 'Down', ...json(ref(ServiceStatus)) },
        },
      },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Trawl API',
      version: 'v1',
      description: 'Scraping, crawling and extraction. Errors use one envelope: {error, message, request_id, details}.',
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: 'Scrape' }, { name: 'Extract' }, { name: 'Health' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
  };
}
