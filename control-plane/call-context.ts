import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextValues, type HandlerContext } from '@connectrpc/connect';

/** A call's handler context, and how the direct handler ends it. */
export interface CallContext extends HandlerContext {
  /** Aborts the call's signal with `reason` (once) and stops its deadline. */
  abort(reason: unknown): void;
}

export interface CallContextInit {
  method: DescMethod;
  url: string;
  /** The caller's deadline, from connect-timeout-ms; none when undefined. */
  timeoutMs: number | undefined;
  requestHeader: Headers;
  responseHeader: Record<string, string>;
}

/**
 * The handler context of a call the direct handler answers
 * (unary-handler.ts): what connect's `createHandlerContext` gives service
 * implementations and interceptors, with one abort controller where connect
 * makes two and links them with listeners (one for the deadline, one for the
 * call) and with the request headers taken as given rather than copied into
 * another Headers. The signal aborts when the deadline passes (Code
 * DeadlineExceeded, as connect's) or when the call is ended. Those
 * controllers, listeners and copies were about a tenth of the control plane's
 * CPU for each `GetJob` (docs/benchmarks.md).
 */
export function createCallContext(init: CallContextInit): CallContext {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timeoutMs: () => number | undefined = () => undefined;
  if (init.timeoutMs !== undefined) {
    const deadline = Date.now() + init.timeoutMs;
    timeoutMs = () => deadline - Date.now();
    const timedOut = () => controller.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded));
    if (init.timeoutMs <= 0) timedOut();
    else timer = setTimeout(timedOut, init.timeoutMs);
  }
  return {
    method: init.method,
    service: init.method.parent,
    protocolName: 'connect',
    requestMethod: 'POST',
    url: init.url,
    signal: controller.signal,
    timeoutMs,
    requestHeader: init.requestHeader,
    responseHeader: new Headers(init.responseHeader),
    responseTrailer: new Headers(),
    values: createContextValues(),
    abort(reason) {
      clearTimeout(timer);
      if (!controller.signal.aborted) controller.abort(reason);
    },
  };
}
