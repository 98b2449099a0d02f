import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

/**
 * The test stack runs with the local-development setting off and only the
 * fixture site's own address (127.0.0.1/32) allowed, so every other internal
 * address must be refused before any connection is made.
 */
describe('the SSRF guard through the whole stack', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
    account = await createTestAccount(stack, 1_000_000);
  });
  after(async () => site.close());

  const targets: Array<[string, string]> = [
    ['loopback (dotted)', 'http://127.0.0.2/'],
    ['loopback (decimal)', 'http://2130706434/'],
    ['loopback (octal)', 'http://0177.0.0.2/'],
    ['loopback (hex)', 'http://0x7f.0x0.0x0.0x2/'],
    ['loopback (hex, one number)', 'http://0x7f000002/'],
    ['loopback (short form)', 'http://127.2/'],
    ['loopback by name', 'http://localhost/'],
    ['loopback IPv6', 'http://[::1]/'],
    ['IPv4-mapped IPv6 (dotted)', 'http://[::ffff:127.0.0.2]/'],
    ['IPv4-mapped IPv6 (hex)', 'http://[::ffff:7f00:2]/'],
    ['IPv4-mapped IPv6 (long form)', 'http://[0:0:0:0:0:ffff:a00:1]/'],
    ['private 10/8', 'http://10.0.0.1/'],
    ['private 10/8 (short form)', 'http://10.1/'],
    ['private 172.16/12', 'http://172.16.5.4/'],
    ['private 192.168/16', 'http://192.168.1.1/'],
    ['link-local', 'http://169.254.10.10/'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['cloud metadata (decimal)', 'http://2852039166/'],
    ['CGNAT', 'http://100.64.0.1/'],
    ['unspecified', 'http://0.0.0.0/'],
    ['unique-local IPv6', 'http://[fd00::1]/'],
    ['link-local IPv6', 'http://[fe80::1]/'],
  ];
  for (const [what, url] of targets) {
    it(`refuses ${what}: ${url}`, async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', { url });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('URL_NOT_ALLOWED');
      expect(res.body.billing.refunded).to.equal(true);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });
  }

  for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://[::1]:80/', 'http://10.0.0.1/admin']) {
    it(`refuses a redirect from an allowed page to ${target}`, async () => {
      const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', {
        url: `${site.url}/redirect/to?url=${encodeURIComponent(target)}`,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('URL_NOT_ALLOWED');
    });
  }

  it('still lets the allowed fixture address through', async () => {
    const res = await apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', { url: `${site.url}/article`, formats: ['text'] });
    expect(res.status).to.equal(200);
  });
});
