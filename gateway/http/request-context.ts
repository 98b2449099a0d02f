import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { TrawlError } from '../../common/errors.js';
import { REFUSED_BODY_DRAIN_BYTES } from '../../common/limits.js';
import type { Logger } from '../../common/logger.js';
import { errorBody } from './error-envelope.js';
import { requestIds } from './request-id.js';
import { setRetryAfter } from './retry-after.js';

export interface RequestState {
  requestId: string;
  startedAt: number;
  /** The client address (gateway/http/client-ip.ts: X-Forwarded-For only from trusted proxies). */
  clientIp: string;
  accountId?: string;
  apiKeyId?: string;
  jobId?: string;
  tier?: string;
  creditsMicrocents?: number;
  errorCode?: string;
  targetUrl?: string;
  route?: string;
  /** A liveness or readiness probe (RouteSpec.probe): answered, but not recorded in request logs. */
  probe?: boolean;
  /** Top-level fields added to the error envelope (billing of a refunded job, deprecation warnings). */
  errorFields?: Record<string, unknown>;
}

declare module 'koa' {
  interface DefaultState {
    trawl: RequestState;
  }
}

/** Adds top-level fields to the error envelope this request answers with, should it fail. */
export function addErrorFields(ctx: Context, fields: Record<string, unknown>): void {
  const state = ctx.state.trawl;
  state.errorFields = state.errorFields ? { ...state.errorFields, ...fields } : fields;
}

/** Refusals of the body itself: a compressed one so refused (a bomb, an unknown coding) always closes its connection. */
const BODY_REFUSED = new Set(['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']);

/**
 * Whether the connection is kept after an error answer, the rest of an
 * unread body read and dropped (REFUSED_BODY_DRAIN_BYTES): a body fully
 * received, or one of a declared size within that bound. A stalled body, a
 * refused compressed one, or one larger or chunked gets the connection
 * closed instead, so the next request on it is not stalled behind bytes no
 * one reads.
 */
function drainable(req: IncomingMessage, code: string): boolean {
  if (code === 'REQUEST_TIMEOUT') return false;
  const encoding = req.headers['content-encoding'];
  if (BODY_REFUSED.has(code) && encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return false;
  if (req.complete) return true;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && length !== undefined && Number(length) <= REFUSED_BODY_DRAIN_BYTES;
}

/**
 * Gives every request an id, and answers every failure with the error
 * envelope: a TrawlError keeps its code and status; anything else is an
 * INTERNAL_ERROR that is logged and never leaks its message.
 */
export function requestContext(log: Logger, clientIp: (req: IncomingMessage) => string) {
  const nextId = requestIds();
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.req.headers['x-request-id'];
    const requestId = nextId(typeof incoming === 'string' ? incoming : undefined);
    ctx.state.trawl = { requestId, startedAt: Date.now(), clientIp: clientIp(ctx.req) };
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new TrawlError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
      }
      // A 503 a route answered itself (a scrape's NETWORK_ERROR or TARGET_UNAVAILABLE) says when to come back, as every 503 does.
      if (ctx.status === 503 && !ctx.response.get('Retry-After')) setRetryAfter(ctx);
    } catch (raw) {
      const err = toTrawlError(raw, log, requestId);
      const state = ctx.state.trawl;
      state.errorCode = err.code;
      ctx.status = err.httpStatus;
      ctx.body = state.errorFields ? { ...errorBody(err, requestId), ...state.errorFields } : errorBody(err, requestId);
      if (err.code === 'RATE_LIMIT_EXCEEDED' && err.details?.['retry_after_seconds'] !== undefined) {
        ctx.set('Retry-After', String(err.details['retry_after_seconds']));
      }
      if (err.httpStatus === 503) setRetryAfter(ctx);
      // A body the answer left unread: dropped as it arrives (the client still sending gets the answer), or the connection closed.
      if (!drainable(ctx.req, err.code)) ctx.set('Connection', 'close');
      else if (!ctx.req.complete) ctx.req.resume();
    }
  };
}

function toTrawlError(raw: unknown, log: Logger, requestId: string): TrawlError {
  if (raw instanceof TrawlError) return raw;
  if (isHttpError(raw) && raw.status < 500) return httpErrorToTrawl(raw);
  log.error({ err: raw, requestId }, 'unexpected error');
  return new TrawlError('INTERNAL_ERROR', 'Internal error');
}

function isHttpError(err: unknown): err is { status: number; message: string } {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}

/** HTTP errors thrown by Koa or a library it runs (a 4xx with a status). */
function httpErrorToTrawl(err: { status: number; message: string }): TrawlError {
  if (err.status === 404) return new TrawlError('NOT_FOUND', err.message);
  return new TrawlError('VALIDATION_ERROR', err.message);
}
