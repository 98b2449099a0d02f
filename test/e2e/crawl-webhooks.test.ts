import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { apiClient } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { linkPage, waitForCrawl } from './crawl-support.js';

describe('crawl webhooks: the webhook object and webhook_url receive the crawl events', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: SiteServer;
  let receiver: WebhookReceiver;
  let account: { accountId: string; key: string };
  before(async () => {
    stack = await getStack();
    site = await startSiteServer({ routes: [linkPage('/', 'Home', ['/a', '/b']), linkPage('/a', 'Page A', []), linkPage('/b', 'Page B', [])] });
    receiver = await startWebhookReceiver();
    account = await createTestAccount(stack, 10_000_000);
  });
  after(async () => {
    await site.close();
    await receiver.close();
  });

  const api = () => apiClient(stack.baseUrl, account.key);
  const to = (tag: string) => (r: { path: string }) => r.path.includes(tag);

  it('sends the events the webhook object asks for, signed with its secret over timestamp and body, with its headers', async () => {
    const secret = 'crawl-secret-1234567890';
    const start = await api().post('/api/v1/crawl', {
      url: `${site.url}/`,
      max_pages: 5,
      webhook: { url: `${receiver.url}?object`, secret, events: ['crawl.started', 'crawl.page.completed', 'crawl.completed'], headers: { 'X-Team': 'docs' } },
    });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    await waitForCrawl(api(), start.body.crawl_id, 60_000);
    const got = await receiver.waitFor(5, 30_000, to('object'));
    const events = got.map((r) => r.event).sort();
    expect(events).to.deep.equal(['crawl.completed', 'crawl.page.completed', 'crawl.page.completed', 'crawl.page.completed', 'crawl.started']);
    for (const r of got) {
      const timestamp = String(r.headers['x-webhook-timestamp']);
      const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(r.rawBody).digest('hex')}`;
      expect(r.headers['x-webhook-signature']).to.equal(expected);
      expect(r.headers['x-team']).to.equal('docs');
      const body = JSON.parse(r.rawBody.toString('utf8'));
      expect(body.data.crawl_id).to.equal(start.body.crawl_id);
    }
  });

  it('sends webhook_url the crawl.completed event only', async () => {
    const start = await api().post('/api/v1/crawl', { url: `${site.url}/`, max_pages: 5, webhook_url: `${receiver.url}?plain` });
    expect(start.status, JSON.stringify(start.body)).to.equal(202);
    await waitForCrawl(api(), start.body.crawl_id, 60_000);
    const got = await receiver.waitFor(1, 30_000, to('plain'));
    // Give any further events time to arrive, then check none did.
    await new Promise((r) => setTimeout(r, 2_500));
    const all = receiver.received.filter(to('plain'));
    expect(all.map((r) => r.event)).to.deep.equal(['crawl.completed']);
    expect(JSON.parse(got[0]!.rawBody.toString('utf8')).data.crawl_id).to.equal(start.body.crawl_id);
    expect(all[0]!.headers['x-webhook-signature']).to.equal(undefined);
  });
});
