import type { DescMethod } from '@bufbuild/protobuf';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type pg from 'pg';
import { keyRequests, keyTimeseries, keyUsageByTier, keyUsageErrors, keyUsageSummary, type KeyUsageScope } from './key-usage.js';
import { TrawlError } from '../../common/errors.js';
import { API_KEY_NAME_MAX_CHARS, API_KEY_USAGE_MAX_DAYS, API_KEY_USAGE_MAX_PAGE_SIZE } from '../../common/limits.js';
import { ApiKeyService } from '../../proto/gen/trawl/v1/api_keys_pb.js';
import { createApiKey } from '../accounts/api-keys.js';
import { callerOf, type CallAuth, type Caller } from '../accounts/caller.js';
import { requireKeyManager, requireKeyRevealer } from './key-access.js';
import type { KeyChanges } from './key-changes.js';
import type { KeyLimits, KeyLimitsState, ResetPeriod } from './key-limits.js';
import { createKeyStore, type StoredKey } from './key-store.js';

export interface KeyServiceDeps {
  pool: pg.Pool;
  clickhouse: ClickHouseClient;
  masterKeyHex: string;
  limits: KeyLimits;
  changes: KeyChanges;
}

/** Every key method takes either credential (methodAuth in control-plane/main.ts). */
export const KEY_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = Object.values(ApiKeyService.method).map((m) => [m, 'either']);

/** Headers the gateway forwards: its request id and the client address it resolved. */
const REQUEST_ID_HEADER = 'x-request-id';
const CLIENT_IP_HEADER = 'x-trawl-client-ip';

const DEFAULT_DAYS = 30;
const DEFAULT_PAGE_SIZE = 50;
const RESET_PERIODS: readonly string[] = ['daily', 'weekly', 'monthly'];

function presentKey(key: StoredKey & { key?: string }) {
  return {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    ...(key.key !== undefined ? { key: key.key } : {}),
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    environment: key.environment,
    ...(key.lastUsedAt ? { lastUsedAt: key.lastUsedAt.toISOString() } : {}),
  };
}

function presentLimits(key: StoredKey, state: KeyLimitsState | null) {
  return {
    apiKeyId: key.id,
    apiKeyName: key.name,
    hasLimits: state !== null,
    ...(state
      ? {
          limits: {
            ...(state.budgetLimitMicrocents !== null ? { budgetLimitMicrocents: BigInt(state.budgetLimitMicrocents) } : {}),
            ...(state.requestLimit !== null ? { requestLimit: BigInt(state.requestLimit) } : {}),
            resetPeriod: state.resetPeriod,
            enabled: state.enabled,
            currentPeriodStart: state.periodStart.toISOString(),
            spentMicrocents: BigInt(state.spentMicrocents),
            requestCount: BigInt(state.requestCount),
          },
        }
      : {}),
  };
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || name.length > API_KEY_NAME_MAX_CHARS) {
    throw new TrawlError('VALIDATION_ERROR', `name must be 1 to ${API_KEY_NAME_MAX_CHARS} characters and not blank`);
  }
  return trimmed;
}

function checkedDays(days: number): number {
  if (days === 0) return DEFAULT_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > API_KEY_USAGE_MAX_DAYS) {
    throw new TrawlError('VALIDATION_ERROR', `days must be 1 to ${API_KEY_USAGE_MAX_DAYS}`);
  }
  return days;
}

function checkedLimit(value: bigint | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new TrawlError('VALIDATION_ERROR', `${name} must be a non-negative integer`);
  return Number(value);
}

export function createKeyService(deps: KeyServiceDeps): ServiceImpl<typeof ApiKeyService> {
  const store = createKeyStore(deps.pool, deps.masterKeyHex);

  /** The caller's key named in the request, with the usage window asked for. */
  async function usageScope(ctx: HandlerContext, keyId: string, days: number): Promise<{ key: StoredKey; scope: KeyUsageScope }> {
    const caller = callerOf(ctx);
    const key = await store.get(caller.accountId, keyId);
    return { key, scope: { accountId: caller.accountId, apiKeyId: key.id, days: checkedDays(days) } };
  }

  async function managed(ctx: HandlerContext): Promise<Caller> {
    const caller = callerOf(ctx);
    await requireKeyManager(deps.pool, caller);
    return caller;
  }

  return {
    async createApiKey(req, ctx) {
      const caller = await managed(ctx);
      const environment = req.environment || 'live';
      if (environment !== 'live' && environment !== 'test') throw new TrawlError('VALIDATION_ERROR', 'environment must be live or test');
      const created = await createApiKey(deps.pool, {
        accountId: caller.accountId,
        name: checkedName(req.name),
        environment,
        masterKeyHex: deps.masterKeyHex,
        createdByUserId: caller.userId,
      });
      return presentKey({ ...created, createdAt: new Date(created.createdAt), lastUsedAt: null });
    },

    async listApiKeys(_req, ctx) {
      return { apiKeys: (await store.list(callerOf(ctx).accountId)).map(presentKey) };
    },

    async updateApiKey(req, ctx) {
      const caller = await managed(ctx);
      return presentKey(await store.rename(caller.accountId, req.keyId, checkedName(req.name)));
    },

    async revokeApiKey(req, ctx) {
      const caller = await managed(ctx);
      await store.revoke(caller.accountId, req.keyId);
      await deps.changes.announce(req.keyId);
      return {};
    },

    async regenerateApiKey(req, ctx) {
      const caller = await managed(ctx);
      const renewed = await store.regenerate(caller.accountId, req.keyId);
      await deps.changes.announce(renewed.id);
      return presentKey(renewed);
    },

    async decryptApiKey(req, ctx) {
      const caller = callerOf(ctx);
      await store.get(caller.accountId, req.keyId);
      await requireKeyRevealer(deps.pool, caller, req.keyId);
      const key = await store.decrypt(caller.accountId, req.keyId, {
        actorUserId: caller.userId,
        actorApiKeyId: caller.keyId,
        clientIp: ctx.requestHeader.get(CLIENT_IP_HEADER),
        requestId: ctx.requestHeader.get(REQUEST_ID_HEADER),
      });
      return { key };
    },

    async getApiKeyLimits(req, ctx) {
      const key = await store.get(callerOf(ctx).accountId, req.keyId);
      return presentLimits(key, await deps.limits.read(key.id));
    },

    async setApiKeyLimits(req, ctx) {
      const caller = await managed(ctx);
      const key = await store.get(caller.accountId, req.keyId);
      const resetPeriod = req.resetPeriod || 'monthly';
      if (!RESET_PERIODS.includes(resetPeriod)) throw new TrawlError('VALIDATION_ERROR', 'reset_period must be daily, weekly or monthly');
      const budgetLimitMicrocents = checkedLimit(req.budgetLimitMicrocents, 'budget_limit_microcents');
      const requestLimit = checkedLimit(req.requestLimit, 'request_limit');
      if (budgetLimitMicrocents === null && requestLimit === null) {
        throw new TrawlError('VALIDATION_ERROR', 'Set budget_limit_microcents, request_limit or both');
      }
      const state = await deps.limits.write(key.id, { budgetLimitMicrocents, requestLimit, resetPeriod: resetPeriod as ResetPeriod, enabled: req.enabled });
      await deps.changes.announce(key.id);
      return presentLimits(key, state);
    },

    async deleteApiKeyLimits(req, ctx) {
      const caller = await managed(ctx);
      const key = await store.get(caller.accountId, req.keyId);
      if (!(await deps.limits.remove(key.id))) throw new TrawlError('NOT_FOUND', `API key ${key.id} has no limits`);
      await deps.changes.announce(key.id);
      return {};
    },

    async getApiKeyUsage(req, ctx) {
      const { key, scope } = await usageScope(ctx, req.keyId, req.days);
      const usage = await keyUsageSummary(deps.clickhouse, scope);
      return {
        apiKeyId: key.id,
        apiKeyName: key.name,
        totalRequests: BigInt(usage.totalRequests),
        successfulRequests: BigInt(usage.successfulRequests),
        failedRequests: BigInt(usage.failedRequests),
        totalSpendMicrocents: BigInt(usage.totalSpendMicrocents),
      };
    },

    async getApiKeyUsageByTier(req, ctx) {
      const { key, scope } = await usageScope(ctx, req.keyId, req.days);
      const tiers = await keyUsageByTier(deps.clickhouse, scope);
      return {
        apiKeyId: key.id,
        days: scope.days,
        tiers: tiers.map((t) => ({ tier: t.tier, requests: BigInt(t.requests), spendMicrocents: BigInt(t.spendMicrocents) })),
      };
    },

    async getApiKeyUsageErrors(req, ctx) {
      const { key, scope } = await usageScope(ctx, req.keyId, req.days);
      const errors = await keyUsageErrors(deps.clickhouse, scope);
      return {
        apiKeyId: key.id,
        days: scope.days,
        totalErrors: BigInt(errors.reduce((sum, e) => sum + e.count, 0)),
        errors: errors.map((e) => ({ errorCode: e.errorCode, count: BigInt(e.count), lastSeen: e.lastSeen })),
      };
    },

    async listApiKeyRequests(req, ctx) {
      const { key, scope } = await usageScope(ctx, req.keyId, req.days);
      const page = req.page || 1;
      const pageSize = req.pageSize || DEFAULT_PAGE_SIZE;
      if (page < 1 || pageSize < 1 || pageSize > API_KEY_USAGE_MAX_PAGE_SIZE) {
        throw new TrawlError('VALIDATION_ERROR', `page must be 1 or more and page_size 1 to ${API_KEY_USAGE_MAX_PAGE_SIZE}`);
      }
      if (req.status !== '' && req.status !== 'success' && req.status !== 'failed') {
        throw new TrawlError('VALIDATION_ERROR', 'status must be success or failed');
      }
      const found = await keyRequests(
        deps.clickhouse,
        scope,
        { ...(req.status ? { status: req.status } : {}), tier: req.tier, domain: req.domain },
        { page, pageSize },
      );
      return {
        apiKeyId: key.id,
        total: BigInt(found.total),
        page,
        pageSize,
        totalPages: Math.ceil(found.total / pageSize),
        items: found.items.map((r) => ({ ...r, spendMicrocents: BigInt(r.spendMicrocents), durationMs: BigInt(r.durationMs) })),
      };
    },

    async getApiKeyTimeseries(req, ctx) {
      const { key, scope } = await usageScope(ctx, req.keyId, req.days);
      const granularity = req.granularity || 'day';
      if (granularity !== 'hour' && granularity !== 'day') throw new TrawlError('VALIDATION_ERROR', 'granularity must be hour or day');
      const data = await keyTimeseries(deps.clickhouse, scope, granularity);
      return {
        apiKeyId: key.id,
        days: scope.days,
        granularity,
        data: data.map((d) => ({ bucket: d.bucket, requests: BigInt(d.requests), errors: BigInt(d.errors), spendMicrocents: BigInt(d.spendMicrocents) })),
      };
    },
  };
}
