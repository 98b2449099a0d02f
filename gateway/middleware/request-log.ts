import { create, toBinary } from '@bufbuild/protobuf';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Context, Next } from 'koa';
import type { Logger } from '../../common/logger.js';
import type { NatsNames } from '../../common/nats-names.js';
import { RequestLogSchema } from '../../proto/gen/trawl/v1/request_log_pb.js';

function domainOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * Publishes one record per request once the response is written. Publishing
 * never delays or fails the response: the record goes out after it, and a
 * publish error is only logged.
 */
export function requestLog(deps: { js: JetStreamClient; names: NatsNames; log: Logger }) {
  return async (ctx: Context, next: Next) => {
    await next();
    const state = ctx.state.trawl;
    const bytesIn = Number(ctx.get('content-length')) || 0;
    const record = () =>
      create(RequestLogSchema, {
        requestId: state.requestId,
        tsUnixMs: BigInt(state.startedAt),
        accountId: state.accountId ?? '',
        apiKeyId: state.apiKeyId ?? '',
        method: ctx.method,
        route: state.route ?? ctx.path,
        path: ctx.path,
        status: ctx.status,
        durationMs: BigInt(Date.now() - state.startedAt),
        errorCode: state.errorCode ?? '',
        jobId: state.jobId ?? '',
        targetDomain: domainOf(state.targetUrl),
        tier: state.tier ?? '',
        creditsMicrocents: BigInt(state.creditsMicrocents ?? 0),
        bytesIn: BigInt(bytesIn),
        bytesOut: BigInt(ctx.response.length || 0),
        userAgent: ctx.get('user-agent').slice(0, 512),
        clientIp: ctx.ip,
        source: 'api',
      });
    ctx.res.once('finish', () => {
      deps.js.publish(deps.names.logsSubject, toBinary(RequestLogSchema, record())).catch((err) => {
        deps.log.warn({ err }, 'publishing a request log failed');
      });
    });
  };
}
