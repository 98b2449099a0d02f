import { z } from 'zod';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute, type ResponseDoc } from '../../http/route.js';
import { StatusOk } from '../auth/schemas.js';
import { presentByTier, presentErrors, presentKey, presentLimits, presentRequests, presentTimeseries, presentUsage } from './presenters.js';
import {
  ApiKey,
  ApiKeyLimitsInput,
  ApiKeyLimitsRecord,
  ApiKeyList,
  ApiKeyRequestPage,
  ApiKeyTimeseries,
  ApiKeyUsage,
  ApiKeyUsageByTier,
  ApiKeyUsageErrors,
  CreateApiKeyRequest,
  DecryptedApiKey,
  KeyIdParam,
  NewApiKey,
  RequestsQuery,
  TimeseriesQuery,
  UpdateApiKeyRequest,
  UsageQuery,
} from './schemas.js';

const TIMEOUT_MS = 10_000;
const TAGS = ['API keys'];
const SCOPE_NOTE = "Takes an API key or a session token; X-Organization-Id acts on that organization's account.";
const NO_KEY = 'NOT_FOUND (no such key in the account, or it was revoked: both answer alike); NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)';
const NOT_MANAGER = "FORBIDDEN (a member of an organization who is not its owner or an admin)";

/** The answer to a usage read: the key in the path, the window in the query. */
function usageRoute<Q extends z.ZodType>(spec: {
  path: string;
  operationId: string;
  summary: string;
  query: Q;
  response: ResponseDoc;
  call(input: { keyId: string; query: z.output<Q> }, ctx: Parameters<typeof callOptions>[0]): Promise<unknown>;
}): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: `/api/v1/api-keys/{key_id}/${spec.path}`,
    operationId: spec.operationId,
    summary: spec.summary,
    description: `Read from the request logs, which lag the requests by a few seconds. ${SCOPE_NOTE}`,
    tags: TAGS,
    auth: 'either',
    request: { params: KeyIdParam, query: spec.query },
    responses: { 200: spec.response },
    errors: { 404: NO_KEY },
    handler: async ({ ctx, params, query }) => {
      ctx.body = await spec.call({ keyId: params.key_id, query: query as z.output<Q> }, ctx);
    },
  });
}

/** The account's API keys, their limits and their usage (SPEC 2.14, 4.7). */
export function apiKeyRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const keys = deps.controlPlane.apiKeys;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key (the whole key is shown once)',
      description: SCOPE_NOTE,
      tags: TAGS,
      auth: 'either',
      request: { body: CreateApiKeyRequest },
      responses: { 201: { description: 'The new key, with the whole key', schema: NewApiKey } },
      errors: { 403: NOT_MANAGER, 404: 'NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)' },
      handler: async ({ ctx, body }) => {
        ctx.status = 201;
        ctx.body = presentKey(await keys.createApiKey({ name: body.name, environment: body.environment }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/api-keys',
      operationId: 'listApiKeys',
      summary: "The account's keys that are not revoked, newest first",
      description: SCOPE_NOTE,
      tags: TAGS,
      auth: 'either',
      responses: { 200: { description: 'Keys, without the keys themselves', schema: ApiKeyList } },
      errors: { 404: 'NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)' },
      handler: async ({ ctx }) => {
        const { apiKeys } = await keys.listApiKeys({}, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { api_keys: apiKeys.map(presentKey), total: apiKeys.length };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/api-keys/{key_id}',
      operationId: 'renameApiKey',
      summary: 'Rename an API key',
      description: SCOPE_NOTE,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam, body: UpdateApiKeyRequest },
      responses: { 200: { description: 'The key', schema: ApiKey } },
      errors: { 403: NOT_MANAGER, 404: NO_KEY },
      handler: async ({ ctx, params, body }) => {
        ctx.body = presentKey(await keys.updateApiKey({ keyId: params.key_id, name: body.name }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/api-keys/{key_id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: `The key answers 401 INVALID_API_KEY from the next request on, on every replica. ${SCOPE_NOTE}`,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam },
      responses: { 204: { description: 'Revoked; no body', schema: z.null() } },
      errors: { 403: NOT_MANAGER, 404: NO_KEY },
      handler: async ({ ctx, params }) => {
        await keys.revokeApiKey({ keyId: params.key_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.status = 204;
        ctx.body = null;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/api-keys/{key_id}/regenerate',
      operationId: 'regenerateApiKey',
      summary: 'Replace the secret of an API key (the old one stops working at once)',
      description: `The id, name, limits and usage stay; the whole new key is shown once. ${SCOPE_NOTE}`,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam },
      responses: { 200: { description: 'The key, with the whole new key', schema: NewApiKey } },
      errors: { 403: NOT_MANAGER, 404: NO_KEY },
      handler: async ({ ctx, params }) => {
        ctx.body = presentKey(await keys.regenerateApiKey({ keyId: params.key_id }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/api-keys/{key_id}/decrypt',
      operationId: 'decryptApiKey',
      summary: 'Reveal a stored API key (owners only; audited)',
      description:
        "By session: the user whose personal account holds the key, or the organization's owner or an admin. With an API key: only that key itself. Every reveal is written to the audit log (who, which key, when, client address, request id). " +
        SCOPE_NOTE,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam },
      responses: { 200: { description: 'The whole key', schema: DecryptedApiKey } },
      errors: { 403: `${NOT_MANAGER}; FORBIDDEN (an API key asking for another key)`, 404: NO_KEY },
      handler: async ({ ctx, params }) => {
        ctx.body = { key: (await keys.decryptApiKey({ keyId: params.key_id }, callOptions(ctx, TIMEOUT_MS))).key };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/api-keys/{key_id}/limits',
      operationId: 'getApiKeyLimits',
      summary: "An API key's limits and where its current period stands",
      description: SCOPE_NOTE,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam },
      responses: { 200: { description: 'The limits record', schema: ApiKeyLimitsRecord } },
      errors: { 404: NO_KEY },
      handler: async ({ ctx, params }) => {
        ctx.body = presentLimits(await keys.getApiKeyLimits({ keyId: params.key_id }, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/v1/api-keys/{key_id}/limits',
      operationId: 'setApiKeyLimits',
      summary: "Set an API key's request limit and spend budget",
      description: `Over the request limit a call answers 429 RATE_LIMIT_EXCEEDED; a request that would take the key past its budget answers 402 KEY_BUDGET_EXCEEDED. ${SCOPE_NOTE}`,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam, body: ApiKeyLimitsInput },
      responses: { 200: { description: 'The limits record', schema: ApiKeyLimitsRecord } },
      errors: { 403: NOT_MANAGER, 404: NO_KEY },
      handler: async ({ ctx, params, body }) => {
        const input = {
          keyId: params.key_id,
          ...(body.budget_limit_microcents !== undefined ? { budgetLimitMicrocents: BigInt(body.budget_limit_microcents) } : {}),
          ...(body.request_limit !== undefined ? { requestLimit: BigInt(body.request_limit) } : {}),
          resetPeriod: body.reset_period,
          enabled: body.enabled,
        };
        ctx.body = presentLimits(await keys.setApiKeyLimits(input, callOptions(ctx, TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/api-keys/{key_id}/limits',
      operationId: 'deleteApiKeyLimits',
      summary: "Remove an API key's limits",
      description: SCOPE_NOTE,
      tags: TAGS,
      auth: 'either',
      request: { params: KeyIdParam },
      responses: { 200: { description: 'Removed', schema: StatusOk } },
      errors: { 403: NOT_MANAGER, 404: `${NO_KEY}; NOT_FOUND (the key has no limits)` },
      handler: async ({ ctx, params }) => {
        await keys.deleteApiKeyLimits({ keyId: params.key_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { status: 'ok' };
      },
    }),
    usageRoute({
      path: 'usage',
      operationId: 'getApiKeyUsage',
      summary: "An API key's requests and spend over the last days",
      query: UsageQuery,
      response: { description: 'Usage summary', schema: ApiKeyUsage },
      call: async ({ keyId, query }, ctx) => presentUsage(await keys.getApiKeyUsage({ keyId, days: query.days }, callOptions(ctx, TIMEOUT_MS))),
    }),
    usageRoute({
      path: 'usage/by-tier',
      operationId: 'getApiKeyUsageByTier',
      summary: "An API key's requests and spend by fetch tier",
      query: UsageQuery,
      response: { description: 'Usage by tier', schema: ApiKeyUsageByTier },
      call: async ({ keyId, query }, ctx) => presentByTier(await keys.getApiKeyUsageByTier({ keyId, days: query.days }, callOptions(ctx, TIMEOUT_MS))),
    }),
    usageRoute({
      path: 'usage/errors',
      operationId: 'getApiKeyUsageErrors',
      summary: "An API key's failed requests by error code",
      query: UsageQuery,
      response: { description: 'Errors, most frequent first', schema: ApiKeyUsageErrors },
      call: async ({ keyId, query }, ctx) => presentErrors(await keys.getApiKeyUsageErrors({ keyId, days: query.days }, callOptions(ctx, TIMEOUT_MS))),
    }),
    usageRoute({
      path: 'usage/requests',
      operationId: 'listApiKeyRequests',
      summary: "An API key's requests, newest first, a page at a time",
      query: RequestsQuery,
      response: { description: 'One page of requests', schema: ApiKeyRequestPage },
      call: async ({ keyId, query }, ctx) =>
        presentRequests(
          await keys.listApiKeyRequests(
            { keyId, days: query.days, page: query.page, pageSize: query.page_size, status: query.status ?? '', tier: query.tier ?? '', domain: query.domain ?? '' },
            callOptions(ctx, TIMEOUT_MS),
          ),
        ),
    }),
    usageRoute({
      path: 'usage/timeseries',
      operationId: 'getApiKeyTimeseries',
      summary: "An API key's requests, errors and spend per hour or day",
      query: TimeseriesQuery,
      response: { description: 'Every bucket of the window, oldest first', schema: ApiKeyTimeseries },
      call: async ({ keyId, query }, ctx) =>
        presentTimeseries(await keys.getApiKeyTimeseries({ keyId, days: query.days, granularity: query.granularity }, callOptions(ctx, TIMEOUT_MS))),
    }),
  ];
}
