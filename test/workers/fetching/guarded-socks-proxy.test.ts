import net from 'node:net';
import { expect } from 'chai';
import { startGuardedSocksProxy, type GuardedSocksProxy } from '../../../workers/fetching/guarded-socks-proxy.js';
import { createGuardedConnect } from '../../../common/ssrf-guard.js';
import { startCountingServer, type CountingServer } from '../../fixtures/counting-server.js';

/** A SOCKS5 CONNECT by hand: answers the reply code and, on success, the target's HTTP answer. */
async function socksGet(proxy: GuardedSocksProxy, dest: { domain?: string; ipv4?: string; port: number }, command = 1): Promise<{ reply: number; body: string }> {
  const { port } = new URL(proxy.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(Buffer.from([5, 1, 0]));
  const address = dest.domain
    ? Buffer.concat([Buffer.from([3, dest.domain.length]), Buffer.from(dest.domain, 'latin1')])
    : Buffer.from([1, ...dest.ipv4!.split('.').map(Number)]);
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(dest.port);
  socket.write(Buffer.concat([Buffer.from([5, command, 0]), address, portBytes]));
  await new Promise((r) => setTimeout(r, 100));
  if (!socket.destroyed) socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await closed;
  const all = Buffer.concat(chunks);
  // Greeting answer (2 bytes), then the 10-byte reply, then the tunnel.
  return { reply: all[3] ?? -1, body: all.subarray(12).toString('latin1') };
}

describe('the guarded SOCKS proxy', function () {
  this.timeout(20_000);
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  let allowed: CountingServer;
  let trap: CountingServer;
  let proxy: GuardedSocksProxy;
  const refusedHosts: string[] = [];

  before(async () => {
    allowed = await startCountingServer('127.0.0.1', 'public page');
    trap = await startCountingServer('127.0.0.2', 'internal service');
    const names: Record<string, string[]> = {
      'allowed.test': ['127.0.0.1'],
      'intranet.test': ['127.0.0.2'],
      'rebind.test': ['127.0.0.1', '127.0.0.2'],
    };
    const resolve = async (host: string) => (names[host] ?? []).map((address) => ({ address, family: 4 }));
    proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(guard, { resolve }), onRefused: (host) => refusedHosts.push(host) });
  });
  after(async () => {
    await proxy.close();
    await allowed.close();
    await trap.close();
  });

  it('tunnels a connection to an allowed address by IP and by name', async () => {
    const byIp = await socksGet(proxy, { ipv4: '127.0.0.1', port: allowed.port });
    expect(byIp.reply).to.equal(0);
    expect(byIp.body).to.contain('public page');
    const byName = await socksGet(proxy, { domain: 'allowed.test', port: allowed.port });
    expect(byName.reply).to.equal(0);
    expect(byName.body).to.contain('public page');
  });

  for (const [what, dest] of [
    ['a private IP literal', { ipv4: '127.0.0.2' }],
    ['a name resolving to a private address', { domain: 'intranet.test' }],
    ['a name mixing an allowed and a private address', { domain: 'rebind.test' }],
    ['a name of the local machine', { domain: 'localhost' }],
  ] as const) {
    it(`refuses ${what} with "not allowed by ruleset", never connecting`, async () => {
      const before = proxy.refused();
      const res = await socksGet(proxy, { ...dest, port: trap.port });
      expect(res.reply).to.equal(2);
      expect(res.body).to.equal('');
      expect(proxy.refused()).to.equal(before + 1);
      expect(trap.connections()).to.equal(0);
    });
  }

  it('answers an unknown name as host unreachable, not as a refusal', async () => {
    const res = await socksGet(proxy, { domain: 'nowhere.test', port: 80 });
    expect(res.reply).to.equal(4);
  });

  it('speaks CONNECT only', async () => {
    const res = await socksGet(proxy, { ipv4: '127.0.0.1', port: allowed.port }, 2);
    expect(res.reply).to.equal(7);
  });

  it('tells who asked which host was refused', () => {
    expect(refusedHosts).to.include.members(['127.0.0.2', 'intranet.test', 'rebind.test', 'localhost']);
  });
});
