import type http2 from 'node:http2';
import { fromBinary, toBinary, type DescMethodUnary } from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  createServiceImplSpec,
  type ConnectRouter,
  type Interceptor,
  type MethodImplSpec,
} from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorToJsonBytes, parseTimeout } from '@connectrpc/connect/protocol-connect';
import { webHeaders } from '../common/http2-headers.js';
import { createCallContext } from './call-context.js';

/**
 * The control plane's answer to the one kind of call the gateway makes: a
 * unary call in the Connect protocol with binary protobuf, uncompressed. It
 * runs the same service implementations behind the same interceptors as
 * connect-node's adapter, with a handler context of the same shape
 * (call-context.ts), but reads the body and writes the answer directly
 * instead of through connect's universal request and response (web Headers,
 * async iterables, a DOMException when each call's signal is aborted at its
 * end): about half the CPU a call.
 * Every other request (gRPC, gRPC-Web, Connect JSON or GET, compression,
 * streaming methods) goes to connect-node's adapter.
 * See docs/decisions/0032-control-plane-transport.md.
 */

type UnarySpec = Extract<MethodImplSpec, { kind: 'unary' }>;
type NodeHandler = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void;

/** Why a call's context signal is aborted once the call has been answered: one reason for every call, no stack trace each. */
const CALL_ENDED = new ConnectError('the call has ended', Code.Canceled);

/**
 * A router that hands every service to connect's router and keeps its unary
 * methods by path, for the direct handler. Services registered with options
 * of their own are left to connect's adapter.
 */
export function recordUnaryMethods(into: Map<string, UnarySpec>, router: ConnectRouter): ConnectRouter {
  const recorder: ConnectRouter = {
    get handlers() {
      return router.handlers;
    },
    service(service, impl, options) {
      router.service(service, impl, options);
      if (!options) {
        const spec = createServiceImplSpec(service, impl);
        for (const method of Object.values(spec.methods)) {
          if (method.kind === 'unary') into.set(`/${service.typeName}/${method.method.name}`, method as UnarySpec);
        }
      }
      return recorder;
    },
    rpc(method, impl, options) {
      router.rpc(method, impl, options);
      return recorder;
    },
  };
  return recorder;
}

function isDirectCall(req: http2.Http2ServerRequest): boolean {
  const h = req.headers;
  if (req.method !== 'POST' || h['content-type'] !== 'application/proto' || h['connect-protocol-version'] !== '1') return false;
  const encoding = h['content-encoding'];
  return encoding === undefined || encoding === 'identity';
}

export interface UnaryHandlerOptions {
  methods: ReadonlyMap<string, UnarySpec>;
  interceptors: Interceptor[];
  /** Everything the direct handler does not take. */
  fallback: NodeHandler;
}

export function createUnaryHandler(opts: UnaryHandlerOptions): NodeHandler {
  return (req, res) => {
    const spec = isDirectCall(req) ? opts.methods.get(req.url) : undefined;
    if (!spec) return opts.fallback(req, res);
    void answer(spec, req, res, opts.interceptors);
  };
}

async function answer(spec: UnarySpec, req: http2.Http2ServerRequest, res: http2.Http2ServerResponse, interceptors: Interceptor[]): Promise<void> {
  const timeout = parseTimeout((req.headers['connect-timeout-ms'] as string | undefined) ?? null, Number.MAX_SAFE_INTEGER);
  const method = spec.method as DescMethodUnary;
  const context = createCallContext({
    method,
    url: `http://${req.headers[':authority'] ?? 'localhost'}${req.url}`,
    timeoutMs: timeout.timeoutMs,
    requestHeader: webHeaders(req.headers),
    responseHeader: { 'content-type': 'application/proto' },
  });
  let answered = false;
  let callerLeft = false;
  // The stream closing before the answer is written means the caller went away (cancelled, timed out or disconnected).
  res.once('close', () => {
    if (answered) return;
    callerLeft = true;
    context.abort(new ConnectError('the caller cancelled the call', Code.Canceled));
  });
  let status = 200;
  let body: Uint8Array;
  try {
    if (timeout.error) throw timeout.error;
    const bytes = await readBody(req);
    let input;
    try {
      input = fromBinary(method.input, bytes);
    } catch (err) {
      throw ConnectError.from(err, Code.InvalidArgument);
    }
    const output = await invokeUnaryImplementation(spec, context, input, interceptors);
    body = toBinary(method.output, output);
  } catch (err) {
    const error = err instanceof ConnectError ? err : new ConnectError('internal error', Code.Internal, undefined, undefined, err);
    status = codeToHttpStatus(error.code);
    context.responseHeader.set('content-type', 'application/json');
    error.metadata.forEach((value, name) => context.responseHeader.set(name, value));
    body = errorToJsonBytes(error, {});
  } finally {
    context.abort(CALL_ENDED);
  }
  const stream = res.stream;
  if (callerLeft || stream.destroyed || stream.headersSent) return;
  answered = true;
  const headers: http2.OutgoingHttpHeaders = { ':status': status };
  context.responseHeader.forEach((value, name) => (headers[name] = value));
  context.responseTrailer.forEach((value, name) => (headers[`trailer-${name}`] = value));
  headers['content-length'] = String(body.byteLength);
  // Headers and body through the stream itself, in the same turn: the compatibility response would send the body
  // one turn of the event loop after the headers, in a second write.
  stream.respond(headers);
  stream.end(body);
}

function readBody(req: http2.Http2ServerRequest): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', (err) => reject(ConnectError.from(err, Code.Canceled)));
    req.once('aborted', () => reject(new ConnectError('the caller cancelled the call', Code.Canceled)));
  });
}
