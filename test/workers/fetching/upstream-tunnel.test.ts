import net from 'node:net';
import { expect } from 'chai';
import { request, Socks5ProxyAgent } from 'undici';
import { parseProxyUrl, type ProxyEndpoint } from '../../../common/proxy-url.js';
import { startRouteProxy } from '../../../workers/fetching/proxy-route.js';
import { openUpstreamTunnel } from '../../../workers/fetching/upstream-tunnel.js';
import { startCountingServer, type CountingServer } from '../../fixtures/counting-server.js';
import { startConnectProxy, type ConnectProxy } from '../../support/connect-proxy.js';
import { startSocks5Proxy, type Socks5Proxy } from '../../support/socks5-proxy.js';

const endpoint = (url: string) => parseProxyUrl(url) as ProxyEndpoint;
const dial = (host: string, port: number) => net.connect({ host, port });

/** One HTTP request over an open tunnel; the answer's text. */
async function getOver(socket: net.Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.resume();
  socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await new Promise((resolve) => socket.once('close', resolve));
  return Buffer.concat(chunks).toString('latin1');
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('tunnels through upstream proxies', function () {
  this.timeout(20_000);
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let allowed: CountingServer;
  let trap: CountingServer;
  let http: ConnectProxy;
  let socks: Socks5Proxy;

  before(async () => {
    allowed = await startCountingServer('127.0.0.1', 'public page');
    trap = await startCountingServer('127.0.0.2', 'internal service');
    http = await startConnectProxy({ username: 'alice', password: 's3cret:with@signs' });
    socks = await startSocks5Proxy({ username: 'bob', password: 'sock-pass' });
  });
  after(async () => {
    await Promise.all([allowed.close(), trap.close(), http.close(), socks.close()]);
  });
  beforeEach(() => http.reset());

  it('opens a tunnel through an HTTP proxy with CONNECT and Basic credentials', async () => {
    const socket = await openUpstreamTunnel(endpoint(http.url), { host: '127.0.0.1', port: allowed.port }, dial);
    expect(await getOver(socket)).to.contain('public page');
    expect(http.tunnels).to.deep.equal([`127.0.0.1:${allowed.port}`]);
  });

  it('opens a tunnel through a SOCKS5 proxy with username and password, sending the name', async () => {
    const socket = await openUpstreamTunnel(endpoint(socks.url), { host: 'localhost', port: allowed.port }, dial);
    expect(await getOver(socket)).to.contain('public page');
    expect(socks.tunnels).to.include(`localhost:${allowed.port}`);
  });

  it('fails naming the proxy without its credentials when they are refused', async () => {
    const httpErr = await failure(openUpstreamTunnel(endpoint(http.url.replace('s3cret', 'wrong')), { host: '127.0.0.1', port: allowed.port }, dial));
    expect(httpErr.message).to.contain('407').and.not.to.contain('wrong');
    expect(http.refusedAuth).to.equal(1);
    const socksErr = await failure(openUpstreamTunnel(endpoint(socks.url.replace('sock-pass', 'nope')), { host: '127.0.0.1', port: allowed.port }, dial));
    expect(socksErr.message).to.contain('refused the credentials').and.not.to.contain('nope');
    expect(socks.refusedAuth).to.equal(1);
  });

  describe("an attempt's route proxy", () => {
    const fetchVia = async (proxyUrl: string, url: string) => {
      const dispatcher = new Socks5ProxyAgent(proxyUrl);
      try {
        const res = await request(url, { dispatcher });
        return await res.body.text();
      } finally {
        await dispatcher.destroy();
      }
    };

    it('sends an allowed target through the upstream proxy', async () => {
      const route = await startRouteProxy({ proxy: endpoint(http.url), ownedByCaller: false }, guard);
      try {
        expect(await fetchVia(route.url, `http://127.0.0.1:${allowed.port}/`)).to.equal('public page');
        expect(http.tunnels).to.deep.equal([`127.0.0.1:${allowed.port}`]);
      } finally {
        await route.close();
      }
    });

    it('refuses a private target before the upstream proxy is asked for it', async () => {
      const route = await startRouteProxy({ proxy: endpoint(http.url), ownedByCaller: false }, guard);
      try {
        await failure(fetchVia(route.url, `http://127.0.0.2:${trap.port}/`));
        await failure(fetchVia(route.url, `http://localhost:${trap.port}/`));
        expect(http.tunnels).to.deep.equal([]);
        expect(trap.connections()).to.equal(0);
        expect(route.refused()).to.equal(2);
      } finally {
        await route.close();
      }
    });

    it("dials a caller's proxy only at an address the guard allows", async () => {
      const route = await startRouteProxy({ proxy: { ...endpoint(http.url), host: '127.0.0.2', port: trap.port }, ownedByCaller: true }, guard);
      try {
        await failure(fetchVia(route.url, `http://127.0.0.1:${allowed.port}/`));
        expect(trap.connections()).to.equal(0);
      } finally {
        await route.close();
      }
    });
  });
});

describe('proxy URLs', () => {
  it('reads http, https and socks5 proxies with their credentials and default ports', () => {
    expect(parseProxyUrl('http://u%40x:p%3Aw@proxy.example:3128')).to.deep.equal({ protocol: 'http', host: 'proxy.example', port: 3128, username: 'u@x', password: 'p:w' });
    expect(parseProxyUrl('https://proxy.example')).to.include({ protocol: 'https', port: 443 });
    expect(parseProxyUrl('socks5h://[2001:db8::1]')).to.include({ protocol: 'socks5', host: '2001:db8::1', port: 1080 });
  });

  it('refuses what names no proxy', () => {
    for (const text of ['ftp://h:21', 'proxy.example:3128', 'http://h:1/path', 'http://h:1/?q=1']) expect(parseProxyUrl(text), text).to.be.a('string');
  });
});
