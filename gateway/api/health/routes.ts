import type { Context } from 'koa';
import type { CheckResponse } from '../../../proto/gen/trawl/v1/health_pb.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { IP_LIMITS } from '../../../common/limits.js';
import { callOptions } from '../../http/call-options.js';
import { RETRY_AFTER_HEADER, setRetryAfter } from '../../http/retry-after.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { ExtractionHealth, HealthStatus, JobsHealth, Liveness, OcrHealth, Readiness, ServiceStatus } from './schemas.js';

const CHECK_TIMEOUT_MS = 3_000;

async function check(controlPlane: ControlPlane): Promise<CheckResponse | null> {
  try {
    return await controlPlane.health.check({}, { timeoutMs: CHECK_TIMEOUT_MS });
  } catch {
    return null;
  }
}

function componentOk(res: CheckResponse | null, name: string): boolean {
  return res?.components.find((c) => c.name === name)?.ok ?? false;
}

/** A probe's own 503 (not the error envelope), asking the caller to come back later. */
function unavailable(ctx: Context): void {
  ctx.status = 503;
  setRetryAfter(ctx);
}

/** Health routes answer without an API key, except the jobs, extraction and OCR reports (SPEC 4.11). */
export function healthRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const coreHealthy = async () => {
    const res = await check(deps.controlPlane);
    return componentOk(res, 'database') && componentOk(res, 'cache');
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/health',
      probe: true,
      operationId: 'health',
      summary: 'Health',
      description: 'Reports without failing the probe; /health-check is the one that answers 503.',
      tags: ['Health'],
      auth: 'none',
      responses: { 200: { description: 'Status', schema: HealthStatus } },
      handler: async ({ ctx }) => {
        ctx.body = { status: (await coreHealthy()) ? 'ok' : 'unavailable' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/health-check',
      probe: true,
      operationId: 'healthCheck',
      summary: 'Health for external probes',
      tags: ['Health'],
      auth: 'none',
      responses: {
        200: { description: 'Healthy', schema: HealthStatus },
        503: { description: 'Database or cache unhealthy', schema: HealthStatus, headers: RETRY_AFTER_HEADER },
      },
      handler: async ({ ctx }) => {
        const ok = await coreHealthy();
        if (!ok) unavailable(ctx);
        ctx.body = { status: ok ? 'ok' : 'unavailable' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/health/ready',
      probe: true,
      operationId: 'ready',
      summary: 'Readiness (database and cache)',
      tags: ['Health'],
      auth: 'none',
      responses: {
        200: { description: 'Ready', schema: Readiness },
        503: { description: 'Not ready', schema: Readiness, headers: RETRY_AFTER_HEADER },
      },
      handler: async ({ ctx }) => {
        const ready = await coreHealthy();
        if (!ready) unavailable(ctx);
        ctx.body = { ready };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/health/live',
      probe: true,
      operationId: 'live',
      summary: 'Liveness, no dependency checks',
      tags: ['Health'],
      auth: 'none',
      responses: { 200: { description: 'Alive', schema: Liveness } },
      handler: ({ ctx }) => {
        ctx.body = { status: 'alive' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/health/jobs',
      operationId: 'jobsHealth',
      summary: 'Stuck jobs and work-queue depth',
      description: 'Degraded once the stuck jobs reach the threshold. At most 10 requests per minute from one client address.',
      tags: ['Health'],
      auth: 'api_key',
      ipLimits: [IP_LIMITS.healthJobs],
      responses: { 200: { description: 'The jobs report', schema: JobsHealth } },
      handler: async ({ ctx }) => {
        const res = await deps.controlPlane.health.jobs({}, callOptions(ctx, CHECK_TIMEOUT_MS));
        ctx.body = { stuck_jobs: res.stuckJobs, threshold: res.threshold, status: res.status, queue_depth: Number(res.queueDepth), message: res.message };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/health/extraction',
      operationId: 'extractionHealth',
      summary: 'Extraction readiness',
      description: 'Whether content extraction can run: the live extract-pool workers and whether LLM extraction is configured. Takes an API key or a session token.',
      tags: ['Health'],
      auth: 'either',
      responses: { 200: { description: 'The extraction report', schema: ExtractionHealth } },
      handler: async ({ ctx }) => {
        const res = await deps.controlPlane.health.extraction({}, callOptions(ctx, CHECK_TIMEOUT_MS));
        ctx.body = { status: res.available ? 'available' : 'unavailable', workers: res.workers, llm_configured: res.llmConfigured, message: res.message };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/health/ocr',
      operationId: 'ocrHealth',
      summary: 'OCR availability (administrators)',
      description:
        'Whether images can be read (mode ocr, advanced.ocr): the live document-pool workers, the OCR engine they run and the languages they all have. Takes an API key or a session token of a user with the admin role.',
      tags: ['Health'],
      auth: 'either',
      responses: { 200: { description: 'The OCR report', schema: OcrHealth } },
      errors: { 403: 'FORBIDDEN for callers without the admin role' },
      handler: async ({ ctx }) => {
        const res = await deps.controlPlane.health.ocr({}, callOptions(ctx, CHECK_TIMEOUT_MS));
        ctx.body = { status: res.available ? 'available' : 'unavailable', workers: res.workers, languages: res.languages, engine: res.engine, message: res.message };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/status',
      operationId: 'status',
      summary: 'Status of the API, database, cache, queue, analytics and workers',
      tags: ['Health'],
      auth: 'none',
      responses: {
        200: { description: 'Operational or degraded', schema: ServiceStatus },
        503: { description: 'Down', schema: ServiceStatus, headers: RETRY_AFTER_HEADER },
      },
      handler: async ({ ctx }) => {
        const res = await check(deps.controlPlane);
        const state = (ok: boolean) => (ok ? 'operational' : 'down');
        const workers = res ? { ...res.liveWorkers } : {};
        const components = {
          api: state(res !== null),
          database: state(componentOk(res, 'database')),
          cache: state(componentOk(res, 'cache')),
          queue: state(componentOk(res, 'queue')),
          analytics: state(componentOk(res, 'analytics')),
          worker: state(Object.values(workers).some((n) => n > 0)),
        };
        const values = Object.values(components);
        const status = values.every((v) => v === 'operational')
          ? 'operational'
          : components.database === 'down' || components.api === 'down'
            ? 'down'
            : 'degraded';
        if (status === 'down') unavailable(ctx);
        ctx.body = { status, components, workers, version: 'v1', timestamp: new Date().toISOString() };
      },
    }),
  ];
}
