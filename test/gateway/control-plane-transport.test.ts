import http2 from 'node:http2';
import net from 'node:net';
import { once } from 'node:events';
import { expect } from 'chai';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { TrawlError } from '../../common/errors.js';
import { fromConnectError, withResponseHeaders } from '../../common/rpc-errors.js';
import { createControlPlaneTransport } from '../../gateway/control-plane-transport.js';
import { GetJobResponseSchema, JobSchema, ScrapeService } from '../../proto/gen/trawl/v1/scrape_pb.js';

const JOB_ID = '0b6f7d1e-8a0e-4c59-9d43-2b7d4c1f0a11';

/**
 * The gateway's transport against a real Connect server (connect-node's
 * adapter on HTTP/2, as the control plane serves): answers, failures with
 * their details and headers, deadlines, cancellation, and a server that is
 * gone.
 */
describe('control-plane transport', function () {
  this.timeout(20_000);
  let server: http2.Http2Server;
  let baseUrl: string;
  const sessions = new Set<http2.ServerHttp2Session>();
  let seenHeaders: Headers | undefined;

  before(async () => {
    server = http2.createServer(
      connectNodeAdapter({
        acceptCompression: [],
        routes(router) {
          router.service(ScrapeService, {
            async getJob(req, ctx) {
              seenHeaders = ctx.requestHeader;
              if (req.jobId === 'missing') {
                throw withResponseHeaders(new TrawlError('NOT_FOUND', 'No job missing', { job_id: 'missing' }), { 'x-ratelimit-remaining': '41' });
              }
              if (req.jobId === 'slow') await new Promise((resolve) => setTimeout(resolve, 2_000));
              if (req.jobId === 'hang-up') {
                for (const session of sessions) session.destroy();
                await new Promise((resolve) => setTimeout(resolve, 1_000));
              }
              if (req.jobId === 'crash') throw new Error('a bug');
              ctx.responseHeader.set('trawl-account-id', 'acct-1');
              ctx.responseTrailer.set('trawl-note', 'kept');
              return create(GetJobResponseSchema, { job: create(JobSchema, { jobId: req.jobId, status: 'succeeded', url: 'https://example.com/', attempts: 2 }) });
            },
          });
        },
      }),
    );
    server.on('session', (session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => server.close());

  const clientFor = (url: string) => {
    const transport = createControlPlaneTransport(url);
    return { client: createClient(ScrapeService, transport), close: () => transport.close() };
  };

  it('sends the call with its headers and returns the answer with its headers and trailers', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      let header: Headers | undefined;
      let trailer: Headers | undefined;
      const answer = await client.getJob(
        { jobId: JOB_ID },
        { timeoutMs: 5_000, headers: { 'x-api-key': 'sk_test_1', 'X-Request-Id': 'req-1' }, onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) },
      );
      expect(answer.job?.jobId).to.equal(JOB_ID);
      expect(answer.job?.attempts).to.equal(2);
      expect(header?.get('trawl-account-id')).to.equal('acct-1');
      expect(trailer?.get('trawl-note')).to.equal('kept');
      expect(seenHeaders?.get('x-api-key')).to.equal('sk_test_1');
      expect(seenHeaders?.get('x-request-id')).to.equal('req-1');
      expect(Number(seenHeaders?.get('connect-timeout-ms'))).to.be.within(1, 5_000);
    } finally {
      close();
    }
  });

  it('multiplexes many calls at once on one session', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => client.getJob({ jobId: `job-${i}` })));
      expect(answers.map((a) => a.job?.jobId)).to.deep.equal(Array.from({ length: 200 }, (_, i) => `job-${i}`));
    } finally {
      close();
    }
  });

  it('fails a call with the control plane error, its details and its response headers', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      const err = await client.getJob({ jobId: 'missing' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ConnectError);
      const connect = err as ConnectError;
      expect(connect.code).to.equal(Code.NotFound);
      expect(connect.metadata.get('x-ratelimit-remaining')).to.equal('41');
      const trawl = fromConnectError(connect);
      expect(trawl.code).to.equal('NOT_FOUND');
      expect(trawl.message).to.equal('No job missing');
      expect(trawl.details).to.deep.equal({ job_id: 'missing' });
    } finally {
      close();
    }
  });

  it('passes an unexpected server failure on as an internal error', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      const err = (await client.getJob({ jobId: 'crash' }).catch((e: unknown) => e)) as ConnectError;
      expect(err).to.be.instanceOf(ConnectError);
      expect([Code.Internal, Code.Unknown]).to.include(err.code);
      expect(fromConnectError(err).code).to.equal('INTERNAL_ERROR');
    } finally {
      close();
    }
  });

  it('ends a call at its deadline with DeadlineExceeded', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      const started = Date.now();
      const err = (await client.getJob({ jobId: 'slow' }, { timeoutMs: 200 }).catch((e: unknown) => e)) as ConnectError;
      expect(err.code).to.equal(Code.DeadlineExceeded);
      expect(Date.now() - started).to.be.below(1_900);
      expect(fromConnectError(err).code).to.equal('TIMEOUT');
      // The session still serves the next call.
      expect((await client.getJob({ jobId: JOB_ID })).job?.jobId).to.equal(JOB_ID);
    } finally {
      close();
    }
  });

  it('ends a call when its signal aborts, and refuses one whose signal already has', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      const controller = new AbortController();
      const pending = client.getJob({ jobId: 'slow' }, { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 100);
      expect(((await pending) as ConnectError).code).to.equal(Code.Canceled);
      const err = (await client.getJob({ jobId: JOB_ID }, { signal: AbortSignal.abort() }).catch((e: unknown) => e)) as ConnectError;
      expect(err.code).to.equal(Code.Canceled);
    } finally {
      close();
    }
  });

  it('reports a control plane that cannot be reached as Unavailable (a 503 to clients)', async () => {
    const closed = net.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as net.AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const { client, close } = clientFor(`http://127.0.0.1:${port}`);
    try {
      const err = (await client.getJob({ jobId: JOB_ID }, { timeoutMs: 5_000 }).catch((e: unknown) => e)) as ConnectError;
      expect(err).to.be.instanceOf(ConnectError);
      expect(err.code).to.equal(Code.Unavailable);
      expect(fromConnectError(err).code).to.equal('SERVICE_UNAVAILABLE');
    } finally {
      close();
    }
  });

  it('reports a connection dropped in the middle of a call as Unavailable, and reconnects for the next', async () => {
    const { client, close } = clientFor(baseUrl);
    try {
      const err = (await client.getJob({ jobId: 'hang-up' }, { timeoutMs: 5_000 }).catch((e: unknown) => e)) as ConnectError;
      expect(err).to.be.instanceOf(ConnectError);
      expect(err.code).to.equal(Code.Unavailable);
      expect((await client.getJob({ jobId: JOB_ID })).job?.jobId).to.equal(JOB_ID);
    } finally {
      close();
    }
  });
});
