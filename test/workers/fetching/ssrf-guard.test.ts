import dns from 'node:dns';
import { hostname } from 'node:os';
import { expect } from 'chai';
import { request } from 'undici';
import {
  assertUrlAllowed,
  createGuardedDispatcher,
  isAddressAllowed,
  isBlockedAddress,
  UrlNotAllowedError,
  type ResolveAll,
} from '../../../common/ssrf-guard.js';
import { startCountingServer } from '../../fixtures/counting-server.js';
import { fetchPage } from '../../../workers/fetching/http-fetcher.js';
import type { FetchFailure } from '../../../workers/fetching/fetch-result.js';

const closedGuard = { allowPrivate: false };

function refusal(fn: () => void): UrlNotAllowedError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(UrlNotAllowedError);
    return err as UrlNotAllowedError;
  }
  expect.fail('expected the guard to refuse');
}

/** A plain HTTP server that counts the TCP connections it receives. */
const countingServer = (host: string) => startCountingServer(host, 'reached');

describe('SSRF guard', () => {
  describe('isBlockedAddress', () => {
    const blocked: Array<[string, string]> = [
      ['IPv4 loopback', '127.0.0.1'],
      ['IPv4 loopback, far end of 127/8', '127.255.255.254'],
      ['private 10/8', '10.0.0.1'],
      ['private 172.16/12', '172.16.0.1'],
      ['private 172.16/12, top', '172.31.255.255'],
      ['private 192.168/16', '192.168.1.1'],
      ['link-local', '169.254.10.10'],
      ['CGNAT 100.64/10', '100.64.0.1'],
      ['CGNAT 100.64/10, top', '100.127.255.254'],
      ['unspecified', '0.0.0.0'],
      ['this network 0/8', '0.1.2.3'],
      ['broadcast', '255.255.255.255'],
      ['multicast', '224.0.0.1'],
      ['reserved 240/4', '240.0.0.1'],
      ['documentation 192.0.2/24', '192.0.2.10'],
      ['benchmarking 198.18/15', '198.18.0.1'],
      ['IETF protocol assignments 192.0.0/24', '192.0.0.192'],
      ['AWS/GCP/Azure metadata', '169.254.169.254'],
      ['AWS ECS task metadata', '169.254.170.2'],
      ['Alibaba metadata', '100.100.100.200'],
      ['Azure host agent (public space)', '168.63.129.16'],
      ['AWS IPv6 metadata', 'fd00:ec2::254'],
      ['IPv6 loopback', '::1'],
      ['IPv6 unspecified', '::'],
      ['IPv6 link-local', 'fe80::1'],
      ['IPv6 link-local with zone', 'fe80::1%eth0'],
      ['IPv6 unique-local fc00::/7', 'fc00::1'],
      ['IPv6 unique-local fd00::/8', 'fd12:3456::1'],
      ['IPv6 site-local (deprecated)', 'fec0::1'],
      ['IPv6 multicast', 'ff02::1'],
      ['IPv6 documentation', '2001:db8::1'],
      ['IPv6 discard prefix', '100::1'],
      ['IPv4-mapped loopback (dotted)', '::ffff:127.0.0.1'],
      ['IPv4-mapped loopback (hex)', '::ffff:7f00:1'],
      ['IPv4-mapped loopback (long form)', '0:0:0:0:0:ffff:7f00:1'],
      ['IPv4-mapped private', '::ffff:10.0.0.1'],
      ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
      ['IPv4-translated loopback', '::ffff:0:7f00:1'],
      ['IPv4-compatible loopback', '::7f00:1'],
      ['IPv4-compatible private (dotted)', '::10.0.0.1'],
      ['NAT64 of loopback', '64:ff9b::7f00:1'],
      ['NAT64 of metadata', '64:ff9b::a9fe:a9fe'],
      ['NAT64 of private (dotted)', '64:ff9b::192.168.0.1'],
      ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
      ['6to4 of loopback', '2002:7f00:1::'],
      ['6to4 of private', '2002:c0a8:101::1'],
      ['Teredo with a loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
      ['not an address', 'example.com'],
      ['empty string', ''],
    ];
    for (const [what, ip] of blocked) {
      it(`blocks ${what}: ${ip || '(empty)'}`, () => {
        expect(isBlockedAddress(ip)).to.equal(true);
      });
    }

    const allowed: Array<[string, string]> = [
      ['public IPv4', '8.8.8.8'],
      ['public IPv4 next to CGNAT', '100.128.0.1'],
      ['public IPv4 next to 172.16/12', '172.32.0.1'],
      ['public IPv6', '2606:4700:4700::1111'],
      ['IPv4-mapped public', '::ffff:8.8.8.8'],
      ['NAT64 of public', '64:ff9b::808:808'],
      ['6to4 of public', '2002:808:808::1'],
    ];
    for (const [what, ip] of allowed) {
      it(`lets through ${what}: ${ip}`, () => {
        expect(isBlockedAddress(ip)).to.equal(false);
      });
    }
  });

  describe('assertUrlAllowed', () => {
    const refused: Array<[string, string]> = [
      ['loopback, dotted', 'http://127.0.0.1/'],
      ['loopback, decimal', 'http://2130706433/'],
      ['loopback, octal', 'http://0177.0.0.1/'],
      ['loopback, hex per part', 'http://0x7f.0x0.0x0.0x1/'],
      ['loopback, one hex number', 'http://0x7f000001/'],
      ['loopback, short form', 'http://127.1/'],
      ['loopback, three-part short form', 'http://127.0.1/'],
      ['private, short form', 'http://10.1/'],
      ['private, decimal', 'http://167772161/'],
      ['metadata', 'http://169.254.169.254/latest/meta-data/'],
      ['metadata, decimal', 'http://2852039166/'],
      ['metadata, hex', 'http://0xa9fea9fe/'],
      ['Alibaba metadata', 'http://100.100.100.200/'],
      ['unspecified', 'http://0.0.0.0/'],
      ['unspecified, bare zero', 'http://0/'],
      ['CGNAT', 'http://100.64.0.1/'],
      ['IPv6 loopback', 'http://[::1]/'],
      ['IPv6 unspecified', 'http://[::]/'],
      ['IPv4-mapped IPv6, dotted', 'http://[::ffff:127.0.0.1]/'],
      ['IPv4-mapped IPv6, hex', 'http://[::ffff:7f00:1]/'],
      ['IPv4-mapped IPv6, long form', 'http://[0:0:0:0:0:ffff:7f00:1]/'],
      ['IPv4-mapped IPv6 of private, long form', 'http://[0:0:0:0:0:ffff:a00:1]/'],
      ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]/'],
      ['NAT64 of metadata', 'http://[64:ff9b::a9fe:a9fe]/'],
      ['IPv6 metadata', 'http://[fd00:ec2::254]/'],
      ['IPv6 unique-local', 'http://[fd00::1]/'],
      ['IPv6 link-local', 'http://[fe80::1]/'],
      ['loopback over https with a port', 'https://127.0.0.1:8443/'],
      ['localhost', 'http://localhost/'],
      ['localhost, upper case with trailing dot', 'http://LOCALHOST./'],
      ['a localhost subdomain', 'http://api.localhost:3000/'],
      ['file scheme', 'file:///etc/passwd'],
      ['ftp scheme', 'ftp://example.com/file'],
      ['gopher scheme', 'gopher://example.com/'],
      ['data scheme', 'data:text/html,<h1>hi</h1>'],
    ];
    for (const [what, href] of refused) {
      it(`refuses ${what}: ${href}`, () => {
        const err = refusal(() => assertUrlAllowed(new URL(href), closedGuard));
        expect(err.code).to.equal('URL_NOT_ALLOWED');
        expect(err.httpStatus).to.equal(400);
      });
    }

    it('relies on the WHATWG parser to normalise every IPv4 notation to a dotted quad', () => {
      for (const href of ['http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.0x0.0x0.0x1/', 'http://127.1/']) {
        expect(new URL(href).hostname, href).to.equal('127.0.0.1');
      }
    });

    for (const href of ['https://example.com/page', 'http://93.184.216.34/', 'http://[2606:4700::1111]/', 'http://[::ffff:8.8.8.8]/', 'http://localhost.example.com/']) {
      it(`lets through the public URL ${href}`, () => {
        expect(() => assertUrlAllowed(new URL(href), closedGuard)).not.to.throw();
      });
    }

    it('lets everything through with allowPrivate (local development)', () => {
      for (const href of ['http://127.0.0.1/', 'http://localhost:3000/', 'http://[::1]/', 'http://169.254.169.254/']) {
        expect(() => assertUrlAllowed(new URL(href), { allowPrivate: true }), href).not.to.throw();
      }
    });

    it('still refuses non-http schemes with allowPrivate', () => {
      refusal(() => assertUrlAllowed(new URL('file:///etc/passwd'), { allowPrivate: true }));
    });

    it('lets only the allow-listed range through with allowCidrs', () => {
      const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
      expect(() => assertUrlAllowed(new URL('http://127.0.0.1:8080/'), guard)).not.to.throw();
      expect(() => assertUrlAllowed(new URL('http://[::ffff:127.0.0.1]:8080/'), guard)).not.to.throw();
      for (const href of ['http://127.0.0.2/', 'http://[::1]/', 'http://10.0.0.1/', 'http://169.254.169.254/', 'http://localhost/']) {
        refusal(() => assertUrlAllowed(new URL(href), guard));
      }
    });

    it('keeps metadata endpoints refused inside an allow-listed range', () => {
      const guard = { allowPrivate: false, allowCidrs: ['169.254.0.0/16', 'fd00::/8'] };
      expect(isAddressAllowed('169.254.1.1', guard)).to.equal(true);
      expect(isAddressAllowed('169.254.169.254', guard)).to.equal(false);
      expect(isAddressAllowed('fd00::1', guard)).to.equal(true);
      expect(isAddressAllowed('fd00:ec2::254', guard)).to.equal(false);
    });

    it('matches IPv6 allow-list ranges', () => {
      const guard = { allowPrivate: false, allowCidrs: ['fd12:3456::/32'] };
      expect(isAddressAllowed('fd12:3456::10', guard)).to.equal(true);
      expect(isAddressAllowed('fd12:3457::10', guard)).to.equal(false);
      expect(isAddressAllowed('10.0.0.1', guard)).to.equal(false);
    });
  });

  describe('createGuardedDispatcher (checked at connect time)', () => {
    let loopback: Awaited<ReturnType<typeof countingServer>>;
    before(async () => {
      loopback = await countingServer('127.0.0.1');
    });
    after(async () => loopback.close());

    it('rejects an invalid allow-list entry when it is created', () => {
      expect(() => createGuardedDispatcher({ allowPrivate: false, allowCidrs: ['10.0.0.0/33'] })).to.throw(/not a CIDR range/);
      expect(() => createGuardedDispatcher({ allowPrivate: false, allowCidrs: ['intranet'] })).to.throw(/not a CIDR range/);
    });

    it('refuses an IP literal without opening a connection', async () => {
      const dispatcher = createGuardedDispatcher(closedGuard);
      try {
        const before = loopback.connections();
        const err = await request(`http://127.0.0.1:${loopback.port}/`, { dispatcher }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(UrlNotAllowedError);
        expect(loopback.connections()).to.equal(before);
      } finally {
        await dispatcher.close();
      }
    });

    it('refuses a name that resolves to loopback (localhost from /etc/hosts) at connect time', async () => {
      const dispatcher = createGuardedDispatcher(closedGuard);
      try {
        const before = loopback.connections();
        const err = await request(`http://localhost:${loopback.port}/`, { dispatcher }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(UrlNotAllowedError);
        expect((err as Error).message).to.equal('The host localhost is not allowed: it is not a public internet address');
        expect(loopback.connections()).to.equal(before);
      } finally {
        await dispatcher.close();
      }
    });

    it('refuses an internal name without saying what it resolved to', async () => {
      // This machine's own name resolves through /etc/hosts or the system resolver to one of its internal addresses.
      const name = hostname();
      const addresses = (await dns.promises.lookup(name, { all: true })).map((a) => a.address);
      const outcome = await fetchPage({ url: `http://${name}:${loopback.port}/`, method: 'GET', timeoutMs: 5_000 }, {
        guard: closedGuard,
        maxBytes: 1_000_000,
        maxRedirects: 0,
        userAgent: 'test',
      });
      expect(outcome.kind).to.equal('failed');
      const failure = outcome as FetchFailure;
      expect(failure.code).to.equal('URL_NOT_ALLOWED');
      expect(failure.message).to.equal(`The host ${name} is not allowed: it is not a public internet address`);
      for (const address of addresses) expect(JSON.stringify(failure)).not.to.contain(address);
    });

    it('connects to the address the name resolves to when that address is allowed', async () => {
      const resolve: ResolveAll = async () => [{ address: '127.0.0.1', family: 4 }];
      const dispatcher = createGuardedDispatcher({ allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }, { resolve });
      try {
        const res = await request(`http://intranet.test:${loopback.port}/`, { dispatcher });
        expect(res.statusCode).to.equal(200);
        expect(await res.body.text()).to.equal('reached');
      } finally {
        await dispatcher.close();
      }
    });

    it('refuses a name when any of its addresses is blocked, even with an allowed one among them', async () => {
      const resolve: ResolveAll = async () => [
        { address: '127.0.0.1', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ];
      const dispatcher = createGuardedDispatcher({ allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }, { resolve });
      try {
        const before = loopback.connections();
        const err = await request(`http://mixed.test:${loopback.port}/`, { dispatcher }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(UrlNotAllowedError);
        // The refusal names the host as sent, never the address it resolved to.
        expect((err as Error).message).to.contain('mixed.test').and.not.contain('10.0.0.7');
        expect(JSON.stringify((err as UrlNotAllowedError).details)).not.to.contain('10.0.0.7');
        expect(loopback.connections()).to.equal(before);
      } finally {
        await dispatcher.close();
      }
    });

    it('judges every new connection by a fresh resolution, so a rebound name is refused', async () => {
      const answers = ['127.0.0.1', '127.0.0.2'];
      let lookups = 0;
      const resolve: ResolveAll = async () => [{ address: answers[Math.min(lookups++, answers.length - 1)]!, family: 4 }];
      const dispatcher = createGuardedDispatcher({ allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }, { resolve });
      try {
        const first = await request(`http://rebind.test:${loopback.port}/`, { dispatcher, reset: true });
        expect(first.statusCode).to.equal(200);
        await first.body.text();
        const second = await request(`http://rebind.test:${loopback.port}/`, { dispatcher, reset: true }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(second).to.be.instanceOf(UrlNotAllowedError);
        expect((second as Error).message).to.contain('rebind.test').and.not.contain('127.0.0.2');
        expect(lookups).to.equal(2);
      } finally {
        await dispatcher.close();
      }
    });

    it('passes DNS failures through as the resolver reported them', async () => {
      const dispatcher = createGuardedDispatcher(closedGuard);
      try {
        const err = await request('http://nonexistent.invalid/', { dispatcher }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).not.to.be.instanceOf(UrlNotAllowedError);
        expect((err as NodeJS.ErrnoException).code).to.be.oneOf(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
      } finally {
        await dispatcher.close();
      }
    });

    it('lets a loopback connection through with allowPrivate', async () => {
      const dispatcher = createGuardedDispatcher({ allowPrivate: true });
      try {
        const res = await request(`http://localhost:${loopback.port}/`, { dispatcher });
        expect(res.statusCode).to.equal(200);
        await res.body.text();
      } finally {
        await dispatcher.close();
      }
    });
  });
});
