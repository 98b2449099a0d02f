import { z } from 'zod';
import { sizeLabel } from '../../common/limits.js';
import { BODY_MEDIA_TYPES } from '../http/form-body.js';
import { bodyLimitOf } from '../http/register-routes.js';
import { KEY_LIMIT_HEADERS } from '../../common/rate-limit-headers.js';
import { RETRY_AFTER_HEADER } from '../http/retry-after.js';
import { ErrorEnvelope } from '../http/error-envelope.js';
import type { AnyRoute, AuthKind, HeaderDoc } from '../http/route.js';
import { schemaConverter, type JsonSchema } from './json-schema.js';

const SECURITY: Record<AuthKind, Array<Record<string, string[]>>> = {
  none: [],
  api_key: [{ ApiKey: [] }],
  session: [{ ApiKey: [] }, { SessionToken: [] }],
  either: [{ ApiKey: [] }, { SessionToken: [] }],
};

const SECURITY_SCHEMES: Record<string, Record<string, string>> = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  SessionToken: { type: 'http', scheme: 'bearer', description: 'A dashboard session token.' },
};

const AUTH_ERRORS: Record<AuthKind, string | undefined> = {
  none: undefined,
  api_key: 'MISSING_API_KEY or INVALID_API_KEY',
  session: 'MISSING_API_KEY, INVALID_API_KEY or an invalid session token',
  either: 'MISSING_API_KEY, INVALID_API_KEY or an invalid session token',
};

const DEPRECATION_HEADERS: Record<string, HeaderDoc> = {
  Deprecation: { description: 'Always "true"', type: 'string' },
  Sunset: { description: 'HTTP date of removal', type: 'string' },
  Link: { description: 'rel="sunset" link to this documentation', type: 'string' },
};

/** The error answers every route of its kind can give, whatever its handler does. */
function derivedErrors(route: AnyRoute): Record<number, string> {
  const out: Record<number, string> = {};
  const { body, params, query } = route.request ?? {};
  out[400] = body || params || query ? 'VALIDATION_ERROR' : 'VALIDATION_ERROR (this route takes no request body)';
  const auth = AUTH_ERRORS[route.auth];
  if (auth) out[401] = auth;
  if (body) {
    out[408] = 'REQUEST_TIMEOUT (the request body stalled)';
    out[413] = `PAYLOAD_TOO_LARGE (request body over ${sizeLabel(bodyLimitOf(route))}, after decompression)`;
    out[415] = `UNSUPPORTED_MEDIA_TYPE (send ${(route.bodyTypes ?? ['json']).map((t) => BODY_MEDIA_TYPES[t]).join(' or ')})`;
  }
  const limits = [
    ...(route.ipLimits ?? []).map((l) => `more than ${l.limit} requests per ${l.windowSeconds} s from one ${l.per === 'email' ? 'e-mail address' : 'client address'}`),
    ...(keyLimited(route)
      ? [
          "over the API key's requests per minute, burst per second or concurrent requests (SPEC 8.1)",
          "over the key's own request limit for its period (details.limit api_key_request_limit) or a test key's daily allowance (test_key_daily)",
        ]
      : []),
  ];
  if (limits.length > 0) out[429] = `RATE_LIMIT_EXCEEDED: ${limits.join('; ')}; retry after Retry-After`;
  out[500] = 'INTERNAL_ERROR';
  // Every authenticated route reaches the control plane, Postgres or Redis.
  if (route.auth !== 'none') out[503] = 'SERVICE_UNAVAILABLE (the control plane, Postgres or Redis is down; retry after Retry-After)';
  return out;
}

/** Calls made with an API key count against its limits and answer with their headers (SPEC 8.3). */
function keyLimited(route: AnyRoute): boolean {
  return route.auth === 'api_key' || route.auth === 'either';
}

function headersDoc(headers: Record<string, HeaderDoc>) {
  return Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { description: h.description, schema: { type: h.type } }]));
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query', ref: ReturnType<typeof schemaConverter>) {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const { description, ...fieldSchema } = ref(field, 'input') as JsonSchema & { description?: string };
    return {
      name,
      in: where,
      required: where === 'path' || !field.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: fieldSchema,
    };
  });
}

/** The request body in each media type the route takes. */
function requestContent(route: AnyRoute, schema: JsonSchema) {
  return Object.fromEntries((route.bodyTypes ?? ['json']).map((t) => [BODY_MEDIA_TYPES[t], { schema }]));
}

function operation(route: AnyRoute, ref: ReturnType<typeof schemaConverter>) {
  const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });
  const extraHeaders = { ...(route.deprecation ? DEPRECATION_HEADERS : {}), ...(keyLimited(route) ? KEY_LIMIT_HEADERS : {}) };
  const responses: Record<string, unknown> = {};
  for (const [status, doc] of Object.entries(route.responses)) {
    if (!doc) continue;
    const headers = { ...doc.headers, ...extraHeaders };
    const content = (doc.schema ? json(ref(doc.schema)).content : {}) as Record<string, unknown>;
    for (const type of doc.textMediaTypes ?? []) content[type] = { schema: { type: 'string' } };
    for (const type of doc.binaryMediaTypes ?? []) content[type] = { schema: { type: 'string', contentMediaType: type } };
    responses[status] = {
      description: doc.description,
      ...(Object.keys(headers).length > 0 ? { headers: headersDoc(headers) } : {}),
      content,
    };
  }
  const derived = derivedErrors(route);
  const statuses = new Set([...Object.keys(derived), ...Object.keys(route.errors ?? {})].map(Number));
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const parts = [derived[status], route.errors?.[status]].filter(Boolean);
    const headers = { ...(status === 503 || status === 429 ? RETRY_AFTER_HEADER : {}), ...extraHeaders };
    responses[String(status)] ??= {
      description: parts.join('; '),
      ...(Object.keys(headers).length > 0 ? { headers: headersDoc(headers) } : {}),
      ...json(ref(route.errorSchema ?? ErrorEnvelope)),
    };
  }
  const { body, params, query } = route.request ?? {};
  const params_ = [...parameters(params, 'path', ref), ...parameters(query, 'query', ref)];
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.deprecation ? { deprecated: true } : {}),
    security: SECURITY[route.auth],
    ...(params_.length > 0 ? { parameters: params_ } : {}),
    ...(body ? { requestBody: { required: true, content: requestContent(route, ref(body, 'input')) } } : {}),
    responses,
  };
}

/** An event the service POSTs to receivers: its type and the schema of its `data`. */
export interface EventDocInput {
  type: string;
  summary: string;
  data: z.ZodType;
  crawlOnly?: boolean;
}

const DELIVERY_HEADERS: Record<string, HeaderDoc> = {
  'X-Service-Signature': { description: '`sha256=` and the hex HMAC-SHA256 of the exact body under the webhook secret', type: 'string' },
  'X-Service-Event': { description: 'The event type', type: 'string' },
  'X-Service-Delivery': { description: 'The delivery id: the same on every attempt, so a receiver can drop duplicates', type: 'string' },
  'User-Agent': { description: 'Service-Webhook/1.0', type: 'string' },
};

const CRAWL_SIGNATURE_HEADERS: Record<string, HeaderDoc> = {
  'X-Webhook-Timestamp': { description: "Unix seconds when the attempt was signed (crawl `webhook` object with a secret)", type: 'integer' },
  'X-Webhook-Signature': { description: '`sha256=` and the hex HMAC-SHA256 of `<X-Webhook-Timestamp>.<exact body>` under the crawl webhook object\'s secret', type: 'string' },
};

/** The OpenAPI `webhooks` section: one POST per event, its envelope and headers. */
function webhookOperations(events: readonly EventDocInput[], ref: ReturnType<typeof schemaConverter>) {
  return Object.fromEntries(
    events.map((e) => {
      const envelope = z.object({ event: z.literal(e.type), timestamp: z.string(), data: e.data }).meta({ id: `Event_${e.type.replace(/\./g, '_')}` });
      const headers = { ...DELIVERY_HEADERS, ...(e.crawlOnly || e.type.startsWith('crawl.') ? CRAWL_SIGNATURE_HEADERS : {}) };
      return [
        e.type,
        {
          post: {
            operationId: `event_${e.type.replace(/\./g, '_')}`,
            summary: e.summary,
            description: 'Answer 2xx within 10 seconds. Any other answer, a redirect or a timeout is retried after 1 and 5 minutes, 3 attempts in all.',
            tags: ['Webhooks'],
            // The receiver authenticates the service by the signature header, not by an API credential.
            security: [],
            parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', required: !(name in CRAWL_SIGNATURE_HEADERS), description: h.description, schema: { type: h.type } })),
            requestBody: { required: true, content: { 'application/json': { schema: ref(envelope) } } },
            responses: { '200': { description: 'Received (any 2xx)' } },
          },
        },
      ];
    }),
  );
}

/** The OpenAPI 3.1 document, derived entirely from the route table and the event list. */
export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  serverUrl: string,
  tagDescriptions: Readonly<Record<string, string>>,
  events: readonly EventDocInput[] = [],
): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const ref = schemaConverter(components);
  const paths: Record<string, Record<string, unknown>> = {};
  const tags: string[] = [];
  const usedSchemes = new Set<string>();
  for (const route of routes) {
    if (route.documented === false) continue;
    for (const requirement of SECURITY[route.auth]) for (const name of Object.keys(requirement)) usedSchemes.add(name);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, ref);
    for (const tag of route.tags) if (!tags.includes(tag)) tags.push(tag);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trawl API',
      version: 'v1',
      description: 'Scraping, crawling and extraction. Errors use one envelope: {error, message, request_id, details}.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: serverUrl }],
    tags: tags.map((name) => ({ name, ...(tagDescriptions[name] ? { description: tagDescriptions[name] } : {}) })),
    paths,
    ...(events.length > 0 ? { webhooks: webhookOperations(events, ref) } : {}),
    components: {
      schemas: components,
      securitySchemes: Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => usedSchemes.has(name))),
    },
  };
}
