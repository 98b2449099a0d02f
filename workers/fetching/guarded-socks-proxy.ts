import net from 'node:net';
import { isUrlNotAllowedError } from '../../common/ssrf-guard.js';
import { whenConnected } from './upstream-tunnel.js';

/**
 * A SOCKS5 proxy on the loopback interface through which the clients that
 * cannot use our guarded undici dispatcher connect: Chromium (every request
 * of the page: documents, redirects, sub-resources, WebSockets) and impit
 * (tier 2). The client sends the host name, not an address (SOCKS5 with
 * remote resolution), so the proxy resolves it, judges every address with
 * the SSRF guard and dials the address it judged: rebinding between a check
 * and the connection is impossible, as with the dispatcher. Only CONNECT
 * without authentication is spoken (Chromium offers nothing else); the bytes
 * after it pass through untouched, so TLS stays end to end and the client's
 * TLS and HTTP/2 fingerprint is what the target sees.
 * See docs/decisions/0013-fetch-tiers.md.
 */
export interface GuardedSocksProxy {
  /** socks5://127.0.0.1:<port> */
  url: string;
  /** Connections refused by the guard since the proxy started. */
  refused(): number;
  close(): Promise<void>;
}

export interface GuardedSocksProxyDeps {
  /** Opens a guarded connection (createGuardedConnect). */
  connect(host: string, port: number): net.Socket;
  /**
   * Opens the connection some other way, instead of `connect`: through an
   * upstream proxy (proxy-route.ts), after judging the host itself.
   */
  open?(host: string, port: number): Promise<net.Socket>;
  /** Told of every refusal: the host the client asked for. */
  onRefused?(host: string): void;
}

const VERSION = 5;
const NO_AUTH = 0;
const NO_ACCEPTABLE_METHOD = 0xff;
const CMD_CONNECT = 1;
const ATYP_IPV4 = 1;
const ATYP_DOMAIN = 3;
const ATYP_IPV6 = 4;

/** Reply codes (RFC 1928 section 6). */
const REPLY = {
  succeeded: 0,
  generalFailure: 1,
  notAllowed: 2,
  networkUnreachable: 3,
  hostUnreachable: 4,
  connectionRefused: 5,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;

/** How long a client may take to send its greeting and request. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

function reply(code: number): Buffer {
  // Bound address 0.0.0.0:0: clients of CONNECT do not use it.
  return Buffer.from([VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0]);
}

function replyForError(err: unknown): number {
  if (isUrlNotAllowedError(err)) return REPLY.notAllowed;
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ECONNREFUSED':
      return REPLY.connectionRefused;
    case 'ENETUNREACH':
      return REPLY.networkUnreachable;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return REPLY.hostUnreachable;
    default:
      return REPLY.generalFailure;
  }
}

interface Destination {
  host: string;
  port: number;
  /** Bytes of the request consumed. */
  length: number;
}

/** The greeting's length when complete, 0 while bytes are missing. */
function greetingLength(buf: Buffer): number {
  if (buf.length < 2) return 0;
  const length = 2 + buf[1]!;
  return buf.length >= length ? length : 0;
}

/** The CONNECT request's destination, null while bytes are missing; throws a reply code for what is not spoken. */
function parseRequest(buf: Buffer): Destination | null {
  if (buf.length < 5) return null;
  if (buf[0] !== VERSION) throw REPLY.generalFailure;
  if (buf[1] !== CMD_CONNECT) throw REPLY.commandNotSupported;
  const atyp = buf[3];
  let host: string;
  let at: number;
  if (atyp === ATYP_IPV4) {
    if (buf.length < 10) return null;
    host = [...buf.subarray(4, 8)].join('.');
    at = 8;
  } else if (atyp === ATYP_DOMAIN) {
    const len = buf[4]!;
    if (buf.length < 5 + len + 2) return null;
    host = buf.subarray(5, 5 + len).toString('latin1');
    at = 5 + len;
  } else if (atyp === ATYP_IPV6) {
    if (buf.length < 22) return null;
    const parts: string[] = [];
    for (let i = 0; i < 8; i++) parts.push(buf.readUInt16BE(4 + i * 2).toString(16));
    host = parts.join(':');
    at = 20;
  } else {
    throw REPLY.addressTypeNotSupported;
  }
  return { host, port: buf.readUInt16BE(at), length: at + 2 };
}

function serve(client: net.Socket, deps: GuardedSocksProxyDeps, countRefusal: () => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  let stage: 'greeting' | 'request' | 'connecting' = 'greeting';
  client.setTimeout(HANDSHAKE_TIMEOUT_MS, () => client.destroy());
  client.on('error', () => undefined);
  // A refusal ends the conversation: the answer, then the connection closes.
  const refuse = (answer: Buffer) => client.end(answer, () => client.destroy());

  const onData = (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    if (stage === 'greeting') {
      const length = greetingLength(buffered);
      if (length === 0) return;
      const methods = buffered.subarray(2, length);
      buffered = buffered.subarray(length);
      if (methods.includes(NO_AUTH)) {
        client.write(Buffer.from([VERSION, NO_AUTH]));
        stage = 'request';
      } else {
        refuse(Buffer.from([VERSION, NO_ACCEPTABLE_METHOD]));
        return;
      }
    }
    if (stage !== 'request') return;
    let dest: Destination | null;
    try {
      dest = parseRequest(buffered);
    } catch (code) {
      refuse(reply(code as number));
      return;
    }
    if (!dest) return;
    stage = 'connecting';
    client.off('data', onData);
    client.pause();
    const early = buffered.subarray(dest.length);
    const opening = deps.open ? deps.open(dest.host, dest.port) : whenConnected(deps.connect(dest.host, dest.port), 'connect');
    opening.then((upstream) => {
      client.setTimeout(0);
      upstream.setNoDelay(true);
      client.write(reply(REPLY.succeeded));
      if (early.length > 0) upstream.write(early);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    }, (err: unknown) => {
      if (isUrlNotAllowedError(err)) {
        countRefusal();
        deps.onRefused?.(dest.host);
      }
      refuse(reply(replyForError(err)));
    });
  };
  client.on('data', onData);
}

/** Starts the proxy on a free loopback port. */
export async function startGuardedSocksProxy(deps: GuardedSocksProxyDeps): Promise<GuardedSocksProxy> {
  let refusals = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    serve(client, deps, () => refusals++);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    refused: () => refusals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
