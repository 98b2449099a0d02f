import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { TrawlError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { errorBody } from '../http-errors.js';

export interface RequestState {
  requestId: string;
  startedAt: number;
  accountId?: string;
  apiKeyId?: string;
  jobId?: string;
  tier?: string;
  creditsMicrocents?: number;
  errorCode?: string;
  targetUrl?: string;
  route?: string;
}

declare module 'koa' {
  interface DefaultState {
    trawl: RequestState;
  }
}

/**
 * Gives every request an id, and answers every failure with the error
 * envelope: a TrawlError keeps its code and status; anything else is an
 * INTERNAL_ERROR that is logged and never leaks its message.
 */
export function requestContext(log: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = /^[A-Za-z0-9._-]{8,128}$/.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.trawl = { requestId, startedAt: Date.now() };
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new TrawlError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (raw) {
      let err: TrawlError;
      if (raw instanceof TrawlError) {
        err = raw;
      } else if (isHttpError(raw) && (raw.status < 500 || raw.status === 501)) {
        err = httpErrorToTrawl(raw);
      } else {
        log.error({ err: raw, requestId }, 'unexpected error');
        err = new TrawlError('INTERNAL_ERROR', 'Internal error');
      }
      ctx.state.trawl.errorCode = err.code;
      ctx.status = err.httpStatus;
      ctx.body = { ...errorBody(err, requestId), ...(ctx.state.extraErrorFields ?? {}) };
      if (err.code === 'RATE_LIMIT_EXCEEDED' && err.details?.['retry_after_seconds'] !== undefined) {
        ctx.set('Retry-After', String(err.details['retry_after_seconds']));
      }
    }
  };
}

function isHttpError(err: unknown): err is { status: number; message: string; type?: string } {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}

function httpErrorToTrawl(err: { status: number; message: string; type?: string }): TrawlError {
  if (err.status === 413) return new TrawlError('PAYLOAD_TOO_LARGE', 'The request body is over the 1 MB limit');
  if (err.status === 415) return new TrawlError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  if (err.status === 400) return new TrawlError('VALIDATION_ERROR', 'The request body is not valid JSON', { reason: err.message });
  // 501 is the router's answer to a method it has no handler for at all (TRACE, PROPFIND).
  if (err.status === 405 || err.status === 501) return new TrawlError('METHOD_NOT_ALLOWED', err.message);
  if (err.status === 404) return new TrawlError('NOT_FOUND', err.message);
  return new TrawlError('VALIDATION_ERROR', err.message);
}

declare module 'koa' {
  interface DefaultState {
    extraErrorFields?: Record<string, unknown>;
  }
}
