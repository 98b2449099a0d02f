import http2 from 'node:http2';
import { create, fromBinary, toBinary, type DescMessage, type DescMethodUnary, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { errorFromJsonBytes, protocolVersion, validateResponse } from '@connectrpc/connect/protocol-connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { webHeaders } from '../common/http2-headers.js';

/**
 * The gateway's transport to the control plane: unary calls in the Connect
 * protocol with binary protobuf, written straight onto one multiplexed HTTP/2
 * session (connect-node's session manager, which connects, reconnects and
 * closes idle sessions). Connect's own client transport spends about 250 µs
 * of CPU a call on its general machinery (web streams, linked abort signals,
 * async iterables); this one spends about a third of that, with the same
 * wire protocol and the same errors: a failed call is a ConnectError with the
 * control plane's details and response headers, a call past its deadline
 * DeadlineExceeded, an aborted one Canceled, and a control plane that cannot
 * be reached Unavailable. Streaming calls keep connect's transport.
 * See docs/decisions/0032-control-plane-transport.md.
 */

const { HTTP2_HEADER_STATUS, NGHTTP2_CANCEL } = http2.constants;
const USER_AGENT = 'trawl-gateway';

/** The caller's headers (a record, as the gateway passes them, or any other HeadersInit) onto the request's. */
function addCallerHeaders(into: http2.OutgoingHttpHeaders, init: ConstructorParameters<typeof Headers>[0]): void {
  if (!init) return;
  if (init instanceof Headers) init.forEach((value, name) => (into[name] = value));
  else if (Array.isArray(init)) for (const [name, value] of init) into[name.toLowerCase()] = value;
  else for (const name in init) into[name.toLowerCase()] = (init as Record<string, string>)[name];
}

/** RST_STREAM codes that mean the call broke at the protocol level, not that the control plane went away. */
const PROTOCOL_FAILURES = new Set([0x1, 0x2, 0x3, 0x4, 0x6, 0x9, 0xa]);

/** A call that ended without an answer, as the status a caller acts on: the control plane out of reach is Unavailable. */
function callFailure(reason: unknown, rstCode?: number): ConnectError {
  if (reason instanceof ConnectError) return reason;
  if (rstCode === NGHTTP2_CANCEL) return new ConnectError('the control plane cancelled the call', Code.Canceled);
  if (reason === undefined && rstCode !== undefined && PROTOCOL_FAILURES.has(rstCode)) {
    return new ConnectError(`http/2 stream closed with error code 0x${rstCode.toString(16)}`, Code.Internal);
  }
  const err = new ConnectError(reason instanceof Error ? reason.message : 'the control plane closed the call', Code.Unavailable);
  if (reason !== undefined) err.cause = reason;
  return err;
}

export interface ControlPlaneTransportOptions {
  /** Closes the session after this long without calls (connect-node's default: 15 minutes). */
  idleConnectionTimeoutMs?: number;
}

export function createControlPlaneTransport(baseUrl: string, opts: ControlPlaneTransportOptions = {}): Transport & { close(): void } {
  const session = new Http2SessionManager(baseUrl, { idleConnectionTimeoutMs: opts.idleConnectionTimeoutMs });
  const streaming = createConnectTransport({
    baseUrl,
    httpVersion: '2',
    useBinaryFormat: true,
    acceptCompression: [],
    sendCompression: undefined,
    sessionManager: session,
  });
  const prefix = new URL(baseUrl).pathname.replace(/\/$/, '');

  async function unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: ConstructorParameters<typeof Headers>[0],
    input: MessageInitShape<I>,
  ): Promise<UnaryResponse<I, O>> {
    if (signal?.aborted) throw ConnectError.from(signal.reason, Code.Canceled);
    const deadline = timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined;
    const path = `${prefix}/${method.parent.typeName}/${method.name}`;
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/proto',
      'connect-protocol-version': protocolVersion,
      'user-agent': USER_AGENT,
    };
    if (deadline !== undefined) headers['connect-timeout-ms'] = String(deadline);
    addCallerHeaders(headers, header);
    const body = toBinary(method.input, create(method.input, input));

    return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
      let settled = false;
      let stream: http2.ClientHttp2Stream | undefined;
      let timer: NodeJS.Timeout | undefined;
      const finish = (err: ConnectError | undefined, answer?: UnaryResponse<I, O>) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) {
          if (stream && !stream.closed) stream.close(NGHTTP2_CANCEL);
          reject(err);
        } else resolve(answer!);
      };
      const onAbort = () => finish(ConnectError.from(signal!.reason, Code.Canceled));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) {
        timer = setTimeout(() => finish(new ConnectError('the operation timed out', Code.DeadlineExceeded)), deadline);
      }
      session.request('POST', path, headers, {}).then(
        (opened) => {
          stream = opened;
          if (settled) {
            opened.close(NGHTTP2_CANCEL);
            return;
          }
          // A stream reset without an answer; if its session went with it (the control plane restarted or the connection
          // dropped), the call is Unavailable whatever the reset code.
          const resetFailure = () => {
            const session = opened.session;
            return callFailure(undefined, !session || session.destroyed || session.closed ? undefined : opened.rstCode);
          };
          let status = 0;
          let raw: http2.IncomingHttpHeaders = {};
          const chunks: Buffer[] = [];
          opened.on('response', (h) => {
            status = Number(h[HTTP2_HEADER_STATUS] ?? 0);
            raw = h;
          });
          opened.on('data', (chunk: Buffer) => chunks.push(chunk));
          opened.on('end', () => {
            if (settled) return;
            // Ended before any answer: the stream was reset.
            if (status === 0) return finish(resetFailure());
            const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            const trailer = new Headers();
            const responseHeader = webHeaders(raw, trailer);
            try {
              const encoding = responseHeader.get('content-encoding');
              if (encoding && encoding.toLowerCase() !== 'identity') {
                throw new ConnectError(`unsupported response encoding "${encoding}"`, Code.Internal, responseHeader);
              }
              const { isUnaryError, unaryError } = validateResponse(method.methodKind, true, status, responseHeader);
              if (isUnaryError) {
                const metadata = new Headers(responseHeader);
                trailer.forEach((value, name) => metadata.append(name, value));
                throw errorFromJsonBytes(bytes, metadata, unaryError);
              }
              finish(undefined, { stream: false, service: method.parent, method, header: responseHeader, message: fromBinary(method.output, bytes), trailer });
            } catch (err) {
              finish(ConnectError.from(err, Code.Internal));
            }
          });
          // A call already answered ends its stream too: no failure is made for it.
          opened.on('error', (err) => settled || finish(callFailure(err)));
          opened.on('close', () => settled || finish(resetFailure()));
          opened.end(body);
        },
        (err: unknown) => finish(callFailure(err)),
      );
    });
  }

  return {
    unary,
    stream: streaming.stream,
    close: () => session.abort(),
  };
}
