import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy speaking CONNECT (RFC 9110 9.3.6) on 127.0.0.1, as the
 * premium proxy network and callers' own proxies do: it checks
 * Proxy-Authorization (Basic) against its credentials, answers 407 without
 * them, and records every tunnel it is asked for, so a suite can see which
 * of a tier's connections went through it.
 */
export interface ConnectProxy {
  /** http://user:pass@127.0.0.1:<port> */
  url: string;
  port: number;
  /** CONNECT targets (host:port) tunnelled, in order. */
  tunnels: string[];
  /** CONNECT requests refused for missing or wrong credentials. */
  refusedAuth: number;
  /** Forgets what was recorded. */
  reset(): void;
  close(): Promise<void>;
}

export async function startConnectProxy(credentials: { username: string; password: string }): Promise<ConnectProxy> {
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => {
    // Only tunnels are offered.
    res.writeHead(405).end();
  });
  const proxy: ConnectProxy = {
    url: '',
    port: 0,
    tunnels: [],
    refusedAuth: 0,
    reset() {
      proxy.tunnels.length = 0;
      proxy.refusedAuth = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => undefined);
    if (req.headers['proxy-authorization'] !== expected) {
      proxy.refusedAuth++;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const target = req.url ?? '';
    proxy.tunnels.push(target);
    const at = target.lastIndexOf(':');
    const host = target.slice(0, at).replace(/^\[|\]$/g, '');
    const upstream = net.connect({ host, port: Number(target.slice(at + 1)) });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.url = `http://${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${proxy.port}`;
  return proxy;
}
