import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A SOCKS5 proxy (RFC 1928) on 127.0.0.1 that requires username and
 * password authentication (RFC 1929), as a caller's or a premium SOCKS5
 * proxy does: it records every CONNECT target it opens and every refused
 * login. CONNECT only, domain names resolved here.
 */
export interface Socks5Proxy {
  /** socks5://user:pass@127.0.0.1:<port> */
  url: string;
  tunnels: string[];
  refusedAuth: number;
  close(): Promise<void>;
}

/** Reads exactly n bytes from the socket. */
function read(socket: net.Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk) {
        socket.off('readable', attempt);
        socket.off('end', ended);
        resolve(chunk);
      }
    };
    const ended = () => reject(new Error('closed'));
    socket.on('readable', attempt);
    socket.once('end', ended);
    attempt();
  });
}

export async function startSocks5Proxy(credentials: { username: string; password: string }): Promise<Socks5Proxy> {
  const sockets = new Set<net.Socket>();
  const proxy: Socks5Proxy = { url: '', tunnels: [], refusedAuth: 0, close: async () => undefined };
  const serve = async (client: net.Socket) => {
    const [, count] = await read(client, 2);
    const methods = await read(client, count!);
    if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, 2]));
    const [, userLength] = await read(client, 2);
    const user = (await read(client, userLength!)).toString('utf8');
    const [passLength] = await read(client, 1);
    const pass = (await read(client, passLength!)).toString('utf8');
    if (user !== credentials.username || pass !== credentials.password) {
      proxy.refusedAuth++;
      return void client.end(Buffer.from([1, 1]));
    }
    client.write(Buffer.from([1, 0]));
    const [, command, , type] = await read(client, 4);
    let host: string;
    if (type === 3) host = (await read(client, (await read(client, 1))[0]!)).toString('latin1');
    else if (type === 1) host = [...(await read(client, 4))].join('.');
    else return void client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
    const port = (await read(client, 2)).readUInt16BE(0);
    if (command !== 1) return void client.end(Buffer.from([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]));
    proxy.tunnels.push(`${host}:${port}`);
    // IPv4: the suites' servers listen on 127.0.0.x.
    const upstream = net.connect({ host, port, family: 4 });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
    client.on('close', () => upstream.destroy());
  };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    serve(client).catch(() => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  proxy.url = `socks5://${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
