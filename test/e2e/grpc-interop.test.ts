import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { expect } from 'chai';
import { ROOT } from '../../deploy/local/processes.js';
import { startSiteServer } from '../fixtures/site-server.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

/** An internal service in another stack calls the control plane with a stock gRPC client built from proto/. */
describe('the control plane speaks plain gRPC to @grpc/grpc-js clients', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let pkg: any;

  before(async () => {
    stack = await getStack();
    site = await startSiteServer();
    const definition = await protoLoader.load(['trawl/v1/scrape.proto', 'trawl/v1/health.proto'], {
      includeDirs: [path.join(ROOT, 'proto')],
      keepCase: true,
      longs: String,
      defaults: true,
      oneofs: true,
    });
    pkg = grpc.loadPackageDefinition(definition);
  });
  after(async () => site.close());

  const target = () => `127.0.0.1:${stack.config.controlPlanePort}`;
  const unary = <T>(client: any, method: string, request: unknown, metadata = new grpc.Metadata()) =>
    new Promise<T>((resolve, reject) =>
      client[method](request, metadata, { deadline: Date.now() + 30_000 }, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res))),
    );

  it('answers Health.Check', async () => {
    const client = new pkg.trawl.v1.HealthService(target(), grpc.credentials.createInsecure());
    const res = await unary<any>(client, 'Check', {});
    expect(res.ok).to.equal(true);
    expect(res.components.map((c: { name: string }) => c.name)).to.have.members(['database', 'cache', 'queue', 'analytics']);
    client.close();
  });

  it('runs a scrape through Scrape.Submit with the key in metadata', async () => {
    const { key } = await createTestAccount(stack, 10_000);
    const client = new pkg.trawl.v1.ScrapeService(target(), grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', key);
    const res = await unary<any>(
      client,
      'Submit',
      { request: { url: `${site.url}/article`, mode: 'auto', sync: true, formats: ['markdown'], timeout: 30, method: 'GET' }, wait: true, wait_ms: 20_000 },
      metadata,
    );
    expect(res.job.status).to.equal('succeeded');
    expect(res.job.result.content.stringValue).to.match(/^#\s/m);
    expect(res.job.billing.total_credits).to.equal(1);
    const polled = await unary<any>(client, 'GetJob', { job_id: res.job.job_id }, metadata);
    expect(polled.job.status).to.equal('succeeded');
    client.close();
  });

  it('refuses an invalid extraction schema with INVALID_ARGUMENT before fetching anything', async () => {
    const { key } = await createTestAccount(stack, 10_000);
    const client = new pkg.trawl.v1.ScrapeService(target(), grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', key);
    const hits = site.hits('/article');
    const schema = { fields: { type: { stringValue: 'array' }, items: { structValue: { fields: { type: { stringValue: 'string' } } } } } };
    const err = await unary<any>(
      client,
      'Submit',
      { request: { url: `${site.url}/article`, mode: 'auto', sync: true, formats: ['markdown'], timeout: 30, method: 'GET', extraction_schema: schema }, wait: true, wait_ms: 20_000 },
      metadata,
    ).then(
      () => null,
      (e: grpc.ServiceError) => e,
    );
    expect(err).to.not.equal(null);
    expect(err!.code).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(err!.metadata.get('grpc-status-details-bin')[0]!.toString('latin1')).to.contain('VALIDATION_ERROR');
    expect(site.hits('/article')).to.equal(hits);
    client.close();
  });

  it('answers a call without a key with UNAUTHENTICATED and the public code in the error detail', async () => {
    const client = new pkg.trawl.v1.ScrapeService(target(), grpc.credentials.createInsecure());
    const err = await unary<any>(client, 'GetJob', { job_id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }).then(
      () => null,
      (e: grpc.ServiceError) => e,
    );
    expect(err).to.not.equal(null);
    expect(err!.code).to.equal(grpc.status.UNAUTHENTICATED);
    expect(err!.metadata.get('grpc-status-details-bin')).to.have.length(1);
    expect(err!.metadata.get('grpc-status-details-bin')[0]!.toString('latin1')).to.contain('MISSING_API_KEY');
    client.close();
  });
});
