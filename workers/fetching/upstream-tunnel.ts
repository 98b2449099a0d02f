import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { describeProxy, type ProxyEndpoint } from '../../common/proxy-url.js';
import { isUrlNotAllowedError } from '../../common/ssrf-guard.js';

/**
 * A tunnel to host:port through an upstream proxy (advanced.use_proxy,
 * use_own_proxy, tier 3.5): HTTP CONNECT (over TLS to an https proxy) with
 * Basic credentials, or SOCKS5 with username and password (RFC 1928, 1929),
 * the host sent by name so the proxy resolves it where it is. Resolves with
 * the socket whose bytes reach the target. Errors name the proxy without its
 * credentials.
 */

/** How long the proxy may take to open the tunnel. */
const TUNNEL_TIMEOUT_MS = 15_000;

/** An upstream proxy that did not open the tunnel; answered as a network failure that names the proxy (proxy-route.ts). */
export class ProxyTunnelError extends Error {
  readonly code = 'EPROXY';
  constructor(proxy: ProxyEndpoint, why: string) {
    super(`The proxy ${describeProxy(proxy)} ${why}`);
    this.name = 'ProxyTunnelError';
  }
}

/** The socket once it has connected (or finished its TLS handshake); rejects with the error that stopped it. */
export function whenConnected(socket: net.Socket, event: 'connect' | 'secureConnect'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    socket.once(event, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Reads exactly `length` bytes; what follows them is put back. */
function readBytes(socket: net.Socket, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < length) return;
      done();
      if (buffered.length > length) socket.unshift(buffered.subarray(length));
      resolve(buffered.subarray(0, length));
    };
    const onEnd = () => {
      done();
      reject(new Error('closed the connection during the handshake'));
    };
    // Paused between reads, so bytes put back are kept for the next reader rather than emitted to no one.
    const done = () => {
      socket.pause();
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onEnd);
    socket.resume();
  });
}

const SOCKS_REPLIES: Readonly<Record<number, string>> = {
  1: 'general failure',
  2: 'connection not allowed',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

async function socksHandshake(socket: net.Socket, proxy: ProxyEndpoint, host: string, port: number): Promise<void> {
  const withPassword = proxy.username !== '' || proxy.password !== '';
  socket.write(Buffer.from(withPassword ? [5, 2, 0, 2] : [5, 1, 0]));
  const [version, method] = await readBytes(socket, 2);
  if (version !== 5) throw new ProxyTunnelError(proxy, 'does not speak SOCKS5');
  if (method === 2) {
    const user = Buffer.from(proxy.username, 'utf8');
    const pass = Buffer.from(proxy.password, 'utf8');
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const [, status] = await readBytes(socket, 2);
    if (status !== 0) throw new ProxyTunnelError(proxy, 'refused the credentials');
  } else if (method !== 0) {
    throw new ProxyTunnelError(proxy, 'accepts none of the offered authentication methods');
  }
  const name = Buffer.from(host, 'latin1');
  const request = Buffer.alloc(7 + name.length);
  request.set([5, 1, 0, 3, name.length]);
  name.copy(request, 5);
  request.writeUInt16BE(port, 5 + name.length);
  socket.write(request);
  const head = await readBytes(socket, 5);
  if (head[1] !== 0) throw new ProxyTunnelError(proxy, `refused the connection to ${host}:${port} (${SOCKS_REPLIES[head[1]!] ?? 'unknown reply'})`);
  // The bound address that follows: IPv4, a name, or IPv6, then the port.
  const rest = head[3] === 1 ? 4 + 2 - 1 : head[3] === 4 ? 16 + 2 - 1 : head[4]! + 2;
  await readBytes(socket, rest);
}

/** Why an HTTP proxy's answer to CONNECT opened no tunnel. */
function connectRefusal(status: number | undefined): string {
  return status === 407 ? 'refused the credentials (407 Proxy Authentication Required)' : `answered CONNECT with ${status}`;
}

function httpConnect(socket: net.Socket, proxy: ProxyEndpoint, host: string, port: number): Promise<net.Socket> {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const headers: Record<string, string> = { host: authority };
  if (proxy.username !== '' || proxy.password !== '') {
    headers['proxy-authorization'] = `Basic ${Buffer.from(`${proxy.username}:${proxy.password}`, 'utf8').toString('base64')}`;
  }
  return new Promise((resolve, reject) => {
    // With createConnection and no agent, the request goes over this socket alone.
    const req = http.request({ method: 'CONNECT', path: authority, headers, createConnection: () => socket });
    req.once('connect', (res, tunnel, head) => {
      if (res.statusCode !== 200) {
        tunnel.destroy();
        reject(new ProxyTunnelError(proxy, connectRefusal(res.statusCode)));
        return;
      }
      if (head.length > 0) tunnel.unshift(head);
      resolve(tunnel);
    });
    req.once('response', (res) => {
      res.resume();
      reject(new ProxyTunnelError(proxy, connectRefusal(res.statusCode)));
    });
    req.once('error', reject);
    req.end();
  });
}

/** A socket error's code (ECONNREFUSED, ETIMEDOUT ...), or its message. */
function socketFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (err instanceof Error ? err.message : String(err));
}

/**
 * Opens the tunnel; the socket comes back paused (piping it, or resume(),
 * starts the flow), so no byte is lost before its reader is attached.
 * `connect` dials the proxy itself (the guarded connect
 * for a caller's proxy, so its address passes the SSRF guard).
 */
export async function openUpstreamTunnel(
  proxy: ProxyEndpoint,
  target: { host: string; port: number },
  connect: (host: string, port: number) => net.Socket,
): Promise<net.Socket> {
  const raw = connect(proxy.host, proxy.port);
  const timer = setTimeout(() => raw.destroy(new ProxyTunnelError(proxy, `did not open a tunnel within ${TUNNEL_TIMEOUT_MS / 1000} s`)), TUNNEL_TIMEOUT_MS);
  try {
    await whenConnected(raw, 'connect').catch((err: unknown) => {
      throw isUrlNotAllowedError(err) || err instanceof ProxyTunnelError ? err : new ProxyTunnelError(proxy, `could not be reached (${socketFailure(err)})`);
    });
    if (proxy.protocol === 'socks5') {
      await socksHandshake(raw, proxy, target.host, target.port);
      return raw;
    }
    const toProxy =
      proxy.protocol === 'https'
        ? await whenConnected(tls.connect({ socket: raw, servername: net.isIP(proxy.host) ? undefined : proxy.host }), 'secureConnect').catch((err: unknown) => {
            throw err instanceof ProxyTunnelError ? err : new ProxyTunnelError(proxy, `failed the TLS handshake (${socketFailure(err)})`);
          })
        : raw;
    return await httpConnect(toProxy, proxy, target.host, target.port);
  } catch (err) {
    raw.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
