import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CheckResponse } from '../../proto/gen/trawl/v1/health_pb.js';
import type { ControlPlane } from '../control-plane-client.js';

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

/** Health routes answer without an API key (SPEC 4.11). */
export function registerHealthRoutes(router: Router, deps: { controlPlane: ControlPlane }) {
  const coreHealthy = async () => {
    const res = await check(deps.controlPlane);
    return componentOk(res, 'database') && componentOk(res, 'cache');
  };

  router.get('/api/v1/health', async (ctx: Context) => {
    ctx.state.trawl.route = 'GET /api/v1/health';
    const ok = await coreHealthy();
    // Reports without failing the probe; /health-check is the one that answers 503.
    ctx.status = 200;
    ctx.body = { status: ok ? 'ok' : 'unavailable' };
  });

  router.get('/health-check', async (ctx: Context) => {
    ctx.state.trawl.route = 'GET /health-check';
    const ok = await coreHealthy();
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable' };
  });

  router.get('/api/v1/health/ready', async (ctx: Context) => {
    ctx.state.trawl.route = 'GET /api/v1/health/ready';
    const ready = await coreHealthy();
    ctx.status = ready ? 200 : 503;
    ctx.body = { ready };
  });

  router.get('/api/v1/health/live', (ctx: Context) => {
    ctx.state.trawl.route = 'GET /api/v1/health/live';
    ctx.body = { status: 'alive' };
  });

  router.get('/api/v1/status', async (ctx: Context) => {
    ctx.state.trawl.route = 'GET /api/v1/status';
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
    ctx.status = status === 'down' ? 503 : 200;
    ctx.body = { status, components, workers, version: 'v1', timestamp: new Date().toISOString() };
  });
}
