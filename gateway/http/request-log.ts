import type { IncomingMessage } from 'node:http';
import { Stream } from 'node:stream';
import type { Context, Next } from 'koa';
import type { RequestLogBatcher } from './request-log-batcher.js';

function domainOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * Records every request once its answer is settled, except the probes that
 * load balancers and orchestrators send every few seconds (RouteSpec.probe). A JSON body is
 * serialised here, once, so its length is known for the record without
 * Koa serialising it a second time.
 */
export function requestLog(deps: { batcher: RequestLogBatcher; clientIp(req: IncomingMessage): string }) {
  return async (ctx: Context, next: Next) => {
    await next();
    const body = ctx.body;
    if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && !(body instanceof Stream)) {
      ctx.body = JSON.stringify(body);
    }
    const state = ctx.state.trawl;
    if (state.probe) return;
    const req = ctx.req;
    const headers = req.headers;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    deps.batcher.add({
      requestId: state.requestId,
      tsUnixMs: state.startedAt,
      accountId: state.accountId ?? '',
      apiKeyId: state.apiKeyId ?? '',
      method: req.method ?? '',
      route: state.route ?? path,
      path,
      status: ctx.status,
      durationMs: Date.now() - state.startedAt,
      errorCode: state.errorCode ?? '',
      jobId: state.jobId ?? '',
      targetDomain: state.targetUrl === undefined ? '' : domainOf(state.targetUrl),
      tier: state.tier ?? '',
      creditsMicrocents: state.creditsMicrocents ?? 0,
      bytesIn: Number(headers['content-length']) || 0,
      bytesOut: ctx.response.length || 0,
      userAgent: (headers['user-agent'] ?? '').slice(0, 512),
      clientIp: deps.clientIp(req),
      source: 'api',
    });
  };
}
