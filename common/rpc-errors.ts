import { create, type JsonObject } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema } from '../proto/gen/trawl/v1/errors_pb.js';
import { TrawlError, isErrorCode } from './errors.js';

function grpcCode(httpStatus: number): Code {
  switch (httpStatus) {
    case 400: return Code.InvalidArgument;
    case 401: return Code.Unauthenticated;
    case 402: return Code.FailedPrecondition;
    case 403: return Code.PermissionDenied;
    case 404: return Code.NotFound;
    case 409: return Code.AlreadyExists;
    case 413:
    case 429: return Code.ResourceExhausted;
    case 503: return Code.Unavailable;
    case 504: return Code.DeadlineExceeded;
    default: return httpStatus >= 500 ? Code.Internal : Code.FailedPrecondition;
  }
}

/** The one place a TrawlError becomes a gRPC status with an ErrorInfo detail. */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const trawl = err instanceof TrawlError ? err : new TrawlError('INTERNAL_ERROR', 'Internal error');
  const info = create(ErrorInfoSchema, {
    code: trawl.code,
    httpStatus: trawl.httpStatus,
    details: (trawl.details ?? {}) as JsonObject,
  });
  return new ConnectError(trawl.message, grpcCode(trawl.httpStatus), undefined, [{ desc: ErrorInfoSchema, value: info }], err);
}

/**
 * A failure that still answers with response headers: a TrawlError or
 * ConnectError becomes a ConnectError carrying them as metadata (the gateway
 * reads them from the failed call); any other error passes unchanged.
 */
export function withResponseHeaders(err: unknown, headers: Record<string, string>): unknown {
  if (!(err instanceof TrawlError) && !(err instanceof ConnectError)) return err;
  const connect = toConnectError(err);
  for (const [name, value] of Object.entries(headers)) if (!connect.metadata.has(name)) connect.metadata.set(name, value);
  return connect;
}

/** The one place a gRPC failure becomes a TrawlError again, on the caller's side. */
export function fromConnectError(err: unknown): TrawlError {
  if (err instanceof TrawlError) return err;
  const connect = ConnectError.from(err);
  const [info] = connect.findDetails(ErrorInfoSchema);
  if (info && isErrorCode(info.code)) {
    const details = (info.details ?? undefined) as Record<string, unknown> | undefined;
    return new TrawlError(info.code, connect.rawMessage, details, info.httpStatus > 0 ? info.httpStatus : undefined);
  }
  // The control plane is this service's own dependency: down, it is a 503 the client retries after Retry-After.
  if (connect.code === Code.Unavailable || connect.code === Code.Canceled) {
    return new TrawlError('SERVICE_UNAVAILABLE', 'The control plane is unavailable; try again shortly');
  }
  if (connect.code === Code.DeadlineExceeded) return new TrawlError('TIMEOUT', 'The control plane did not answer in time');
  return new TrawlError('INTERNAL_ERROR', 'Internal error');
}

