import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { startSiteServer, type SiteServer } from '../fixtures/site-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { toMicrocents } from '../../common/pricing.js';
import { apiClient, balanceOf } from '../support/api.js';
import { closedPort } from '../support/closed-port.js';
import { createTestAccount, getStack, OBJECT_STORES, type TestStack } from '../support/stack.js';
import { eventually } from '../support/webhooks.js';
import { crawlResults, linkPage, waitForCrawl, type Api } from './crawl-support.js';

const PAGES = ['/', '/a', '/b', '/c'];

/** Polls the status until `ready` holds of it. */
async function statusWhen(api: Api, crawlId: string, ready: (body: any) => boolean, what: string, query = ''): Promise<any> {
  return eventually(async () => {
    const res = await api.get(`/api/v1/crawl/${crawlId}${query}`);
    return res.status === 200 && ready(res.body) ? res.body : undefined;
  }, 30_000, what);
}

/** The page URLs of JSONL lines, sorted. */
function urlsOf(lines: any[]): string[] {
  return lines.map((l) => new URL(l.url).pathname).sort();
}

function jsonl(body: Buffer | string): any[] {
  return body.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('crawl storage and output: results written to buckets and streamed as pages finish', function () {
  this.timeout(120_000);
  /** The shared stack, a four-page site, an HTTPS receiver for webhook_stream and a funded account. */
  let stack: TestStack;
  let fixtures: { site: SiteServer; receiver: WebhookReceiver; account: { accountId: string; key: string } } | undefined;
  before(async () => {
    stack = await getStack();
    const pages = PAGES.map((path) => linkPage(path, path === '/' ? 'Home' : `Page ${path.slice(1).toUpperCase()}`, path === '/' ? PAGES.slice(1) : []));
    fixtures = { site: await startSiteServer({ routes: pages }), receiver: await startWebhookReceiver(), account: await createTestAccount(stack, 10_000_000) };
  });
  after(async () => {
    await fixtures?.site.close();
    await fixtures?.receiver.close();
  });
  const site = () => fixtures!.site;
  const receiver = () => fixtures!.receiver;
  const account = () => fixtures!.account;

  const api = () => apiClient(stack.baseUrl, account().key);
  const start = async (body: Record<string, unknown>) => {
    const res = await api().post('/api/v1/crawl', { url: `${site().url}/`, max_pages: 10, ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return res.body.crawl_id as string;
  };

  it('storage s3 writes every page once as JSONL in the bucket, downloadable through presigned URLs, with 30-day retention', async () => {
    const crawlId = await start({ storage: 's3' });
    const ended = await waitForCrawl(api(), crawlId, 60_000);
    expect(ended.status).to.equal('completed');
    const done = await statusWhen(api(), crawlId, (b) => b.storage.pages_pending === 0 && b.storage.pages_stored === PAGES.length, 'the results in storage');
    expect(done.storage.type).to.equal('s3');
    const lines: any[] = [];
    for (const file of done.storage.files) {
      expect(file.url).to.match(/X-Amz-Signature=[0-9a-f]{64}/);
      const expires = Date.parse(file.expires_at) - Date.parse(file.written_at);
      expect(expires).to.be.closeTo(30 * 24 * 3600 * 1000, 5_000);
      expect(Date.parse(file.url_expires_at) - Date.now()).to.be.within(6.9 * 24 * 3600 * 1000, 7 * 24 * 3600 * 1000);
      const tampered = await fetch(file.url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=600'));
      expect(tampered.status, 'a URL changed after signing is refused').to.equal(403);
      const res = await fetch(file.url);
      expect(res.status).to.equal(200);
      const got = jsonl(Buffer.from(await res.arrayBuffer()));
      expect(got).to.have.length(file.pages);
      lines.push(...got);
    }
    expect(urlsOf(lines)).to.deep.equal(PAGES);
    for (const line of lines) {
      expect(line.status).to.equal('completed');
      expect(line.job_id).to.be.a('string');
      expect(line.result.title).to.match(/Home|Page [ABC]/);
      expect(line.result.content).to.be.a('string').and.include('page of the fixture site');
    }
    const stored = stack.s3.list(OBJECT_STORES.storageBucket, `crawls/${crawlId}/`);
    expect(stored.map(([k]) => k)).to.deep.equal(done.storage.files.map((f: any) => `crawls/${crawlId}/results-${String(f.part).padStart(5, '0')}.jsonl`));
    expect(stored[0]![1].contentType).to.equal('application/x-ndjson');
    expect(stored[0]![1].tagging).to.equal('trawl-retention-days=30');
    expect(Date.parse(stored[0]![1].expires!)).to.be.greaterThan(Date.now() + 29 * 24 * 3600 * 1000);

    const withResults = await api().get(`/api/v1/crawl/${crawlId}?include_results=true`);
    expect(withResults.body.results).to.deep.equal([]);
    expect(withResults.body.results_location).to.equal('storage');
    expect(withResults.body.results_total).to.equal(PAGES.length);
  });

  it('storage s3 tries a refused write again and still holds every page exactly once', async () => {
    stack.s3.failPuts(2);
    const crawlId = await start({ storage: 's3' });
    await waitForCrawl(api(), crawlId, 60_000);
    const done = await statusWhen(api(), crawlId, (b) => b.storage.pages_stored === PAGES.length && b.storage.pages_pending === 0, 'the retried results');
    const lines = stack.s3.list(OBJECT_STORES.storageBucket, `crawls/${crawlId}/`).flatMap(([, o]) => jsonl(o.body));
    expect(urlsOf(lines)).to.deep.equal(PAGES);
    expect(done.storage.last_error).to.equal(null);
    expect(stack.s3.requests.filter((r) => r.path.includes(crawlId) && r.status === 500)).to.have.length.greaterThan(0);
  });

  it('storage r2 on a server without an R2 bucket answers 400 STORAGE_NOT_CONFIGURED and charges nothing', async () => {
    const before = await balanceOf(stack.pool, account().accountId);
    const res = await api().post('/api/v1/crawl', { url: `${site().url}/`, max_pages: 10, storage: 'r2' });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('STORAGE_NOT_CONFIGURED');
    expect(await balanceOf(stack.pool, account().accountId)).to.equal(before);
  });

  it('output s3 writes every page to the caller\'s bucket under the prefix, and never echoes the secret key', async () => {
    const crawlId = await start({
      output: { type: 's3', bucket: OBJECT_STORES.outputBucket, prefix: 'exports/', format: 'json', credentials: { access_key_id: OBJECT_STORES.outputKeyId, secret_access_key: OBJECT_STORES.outputSecret } },
    });
    await waitForCrawl(api(), crawlId, 60_000);
    const done = await statusWhen(api(), crawlId, (b) => b.output_status?.pages_delivered === PAGES.length, 'the output files');
    expect(done.output_status).to.include({ type: 's3', destination: `s3://${OBJECT_STORES.outputBucket}/exports/`, format: 'json', pages_failed: 0, pages_pending: 0, last_error: null });
    const files = stack.s3.list(OBJECT_STORES.outputBucket, `exports/${crawlId}/`);
    expect(files.every(([, o]) => o.accessKeyId === OBJECT_STORES.outputKeyId && o.contentType === 'application/json')).to.equal(true);
    const written = files.flatMap(([, o]) => JSON.parse(o.body.toString()));
    expect(urlsOf(written)).to.deep.equal(PAGES);
    // Each page in the file is exactly what include_results answers for it.
    const byUrl = (pages: any[]) => [...pages].sort((a, b) => a.url.localeCompare(b.url));
    expect(byUrl(written)).to.deep.equal(byUrl(await crawlResults(api(), crawlId)));
    expect(done.storage).to.deep.equal({ type: 'redis' });
    expect(JSON.stringify(done.config)).not.to.include(OBJECT_STORES.outputSecret);
    expect(done.config.output.credentials).to.deep.equal({ access_key_id: OBJECT_STORES.outputKeyId });
  });

  it('output s3 with a secret key that does not sign for the access key records the failure and leaves the crawl and its charges alone', async () => {
    const before = await balanceOf(stack.pool, account().accountId);
    const crawlId = await start({
      // The bucket's access key with a wrong secret: the signature does not verify.
      output: { type: 's3', bucket: OBJECT_STORES.outputBucket, credentials: { access_key_id: OBJECT_STORES.outputKeyId, secret_access_key: 'not-the-secret' } },
    });
    const ended = await waitForCrawl(api(), crawlId, 60_000);
    expect(ended.status).to.equal('completed');
    const done = await statusWhen(api(), crawlId, (b) => b.output_status?.pages_failed === PAGES.length, 'the output given up');
    expect(done.output_status.pages_delivered).to.equal(0);
    expect(done.output_status.last_error).to.include('SignatureDoesNotMatch');
    expect(done.status).to.equal('completed');
    expect(await balanceOf(stack.pool, account().accountId)).to.equal(before - toMicrocents(done.billing.credits_used));
  });

  it('output gcs exchanges the service account for a token and uploads every page to the caller\'s bucket', async () => {
    const crawlId = await start({ output: { type: 'gcs', bucket: OBJECT_STORES.gcsBucket, prefix: 'trawl', credentials: { service_account_json: stack.gcs.serviceAccountJson } } });
    await waitForCrawl(api(), crawlId, 60_000);
    const done = await statusWhen(api(), crawlId, (b) => b.output_status?.pages_delivered === PAGES.length, 'the GCS output');
    expect(done.output_status).to.include({ type: 'gcs', destination: `gs://${OBJECT_STORES.gcsBucket}/trawl`, pages_failed: 0 });
    const files = [...stack.gcs.objects.entries()].filter(([k]) => k.startsWith(`${OBJECT_STORES.gcsBucket}/trawl/${crawlId}/`));
    expect(urlsOf(files.flatMap(([, body]) => jsonl(body)))).to.deep.equal(PAGES);
    expect(stack.gcs.tokensIssued()).to.be.greaterThan(0);
    expect(JSON.stringify(done.config)).not.to.include('PRIVATE KEY');
  });

  it('output gcs with a service account the token endpoint refuses records the failure without failing the crawl', async () => {
    const crawlId = await start({ output: { type: 'gcs', bucket: OBJECT_STORES.gcsBucket, credentials: { service_account_json: stack.gcs.unknownServiceAccountJson } } });
    const done = await statusWhen(api(), crawlId, (b) => b.output_status?.pages_failed === PAGES.length, 'the GCS output given up');
    expect(done.status).to.equal('completed');
    expect(done.output_status.last_error).to.include('token endpoint refused');
  });

  it('output gcs with a key that is not a service account answers 400 before charging', async () => {
    const res = await api().post('/api/v1/crawl', { url: `${site().url}/`, output: { type: 'gcs', bucket: OBJECT_STORES.gcsBucket, credentials: { service_account_json: '{"a":1}' } } });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('VALIDATION_ERROR');
  });

  it('output webhook_stream POSTs every page once as it finishes, signed with the output secret', async () => {
    const secret = 'stream-secret-1234567890';
    const crawlId = await start({ output: { type: 'webhook_stream', url: `${receiver().url}/stream`, signing: { secret } } });
    const got = await receiver().waitFor(PAGES.length, 30_000, (r) => r.path.includes('stream') && JSON.parse(r.rawBody.toString()).data.crawl_id === crawlId);
    expect(got.map((r) => r.event)).to.deep.equal(PAGES.map(() => 'crawl.page.result'));
    expect(urlsOf(got.map((r) => JSON.parse(r.rawBody.toString()).data))).to.deep.equal(PAGES);
    for (const r of got) {
      const timestamp = String(r.headers['x-webhook-timestamp']);
      expect(r.headers['x-webhook-signature']).to.equal(`sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(r.rawBody).digest('hex')}`);
      expect(JSON.parse(r.rawBody.toString()).data.result.content).to.include('page of the fixture site');
    }
    const done = await statusWhen(api(), crawlId, (b) => b.output_status?.pages_delivered === PAGES.length, 'the stream delivered');
    expect(done.output_status).to.include({ type: 'webhook_stream', pages_failed: 0, pages_pending: 0 });
  });

  it('output webhook_stream to an unreachable URL records the failures after the retries and the crawl still completes', async () => {
    const port = await closedPort();
    const crawlId = await start({ output: { type: 'webhook_stream', url: `https://127.0.0.1:${port}/gone` } });
    const done = await statusWhen(api(), crawlId, (b) => b.output_status?.pages_failed === PAGES.length, 'the stream given up');
    expect(done.status).to.equal('completed');
    expect(done.output_status.pages_delivered).to.equal(0);
    expect(done.output_status.last_error).to.include('ECONNREFUSED');
  });
});
