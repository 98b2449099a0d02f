import http2 from 'node:http2';
import net from 'node:net';
import { once } from 'node:events';
import { expect } from 'chai';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createContextKey, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter, createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { createUnaryHandler, recordUnaryMethods } from '../../control-plane/unary-handler.js';
import { createControlPlaneTransport } from '../../gateway/control-plane-transport.js';
import { GetJobRequestSchema, GetJobResponseSchema, JobSchema, ScrapeService } from '../../proto/gen/trawl/v1/scrape_pb.js';

const CALLER = createContextKey<string>('nobody', { description: 'the caller an interceptor found' });

/**
 * The control plane's direct handler for Connect binary unary calls, in
 * front of connect-node's adapter: the same interceptors and handler
 * context, failures as Connect error bodies, and every other kind of request
 * left to the adapter.
 */
describe('control-plane unary handler', function () {
  this.timeout(20_000);
  let server: http2.Http2Server;
  let baseUrl: string;
  let lastContext: HandlerContext | undefined;
  let cancelledInCall: unknown;
  const calls: string[] = [];

  const interceptor: Interceptor = (next) => async (req) => {
    calls.push(`${req.method.name} via ${req.header.get('x-api-key') ?? 'no key'}`);
    if (req.header.get('x-api-key') === 'refused') throw new ConnectError('no such key', Code.Unauthenticated, { 'x-why': 'refused' });
    req.contextValues.set(CALLER, `caller of ${req.header.get('x-api-key')}`);
    const res = await next(req);
    res.header.set('trawl-account-id', 'acct-7');
    return res;
  };

  before(async () => {
    const methods = new Map();
    const routes = (router: Parameters<typeof recordUnaryMethods>[1]) =>
      router.service(ScrapeService, {
        async getJob(req, ctx) {
          lastContext = ctx;
          if (req.jobId === 'fail') throw new ConnectError('job gone', Code.NotFound, { 'x-detail': 'gone' });
          if (req.jobId === 'bug') throw new TypeError('undefined is not a function');
          if (req.jobId === 'wait') {
            cancelledInCall = await new Promise((resolve) => {
              const timer = setTimeout(() => resolve('not cancelled'), 3_000);
              ctx.signal.addEventListener('abort', () => {
                clearTimeout(timer);
                resolve(ctx.signal.reason);
              });
            });
          }
          ctx.responseTrailer.set('trawl-trailer', 't');
          return create(GetJobResponseSchema, {
            job: create(JobSchema, { jobId: req.jobId, url: ctx.values.get(CALLER), attempts: ctx.timeoutMs() ?? -1 }),
          });
        },
      });
    const fallback = connectNodeAdapter({ routes: (router) => routes(recordUnaryMethods(methods, router)), interceptors: [interceptor], acceptCompression: [] });
    server = http2.createServer(createUnaryHandler({ methods, interceptors: [interceptor], fallback }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => server.close());

  const direct = () => {
    const transport = createControlPlaneTransport(baseUrl);
    return { client: createClient(ScrapeService, transport), close: () => transport.close() };
  };

  it('runs the implementation behind the interceptors, with their context values and headers', async () => {
    const { client, close } = direct();
    try {
      let header: Headers | undefined;
      let trailer: Headers | undefined;
      const answer = await client.getJob({ jobId: 'j1' }, { headers: { 'x-api-key': 'k1' }, timeoutMs: 4_000, onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) });
      expect(answer.job?.jobId).to.equal('j1');
      expect(answer.job?.url).to.equal('caller of k1');
      expect(answer.job?.attempts).to.be.within(3_000, 4_000);
      expect(header?.get('trawl-account-id')).to.equal('acct-7');
      expect(header?.get('content-type')).to.equal('application/proto');
      expect(trailer?.get('trawl-trailer')).to.equal('t');
      expect(calls.at(-1)).to.equal('GetJob via k1');
      expect(lastContext?.requestHeader.get('x-api-key')).to.equal('k1');
      expect(lastContext?.signal.aborted, 'the call signal ends with the call').to.equal(true);
    } finally {
      close();
    }
  });

  it('answers a failure as a Connect error with its code and headers, from an interceptor or the implementation', async () => {
    const { client, close } = direct();
    try {
      const refused = (await client.getJob({ jobId: 'j2' }, { headers: { 'x-api-key': 'refused' } }).catch((e: unknown) => e)) as ConnectError;
      expect(refused.code).to.equal(Code.Unauthenticated);
      expect(refused.rawMessage).to.equal('no such key');
      expect(refused.metadata.get('x-why')).to.equal('refused');
      const gone = (await client.getJob({ jobId: 'fail' }, { headers: { 'x-api-key': 'k2' } }).catch((e: unknown) => e)) as ConnectError;
      expect(gone.code).to.equal(Code.NotFound);
      expect(gone.metadata.get('x-detail')).to.equal('gone');
      const bug = (await client.getJob({ jobId: 'bug' }, { headers: { 'x-api-key': 'k2' } }).catch((e: unknown) => e)) as ConnectError;
      expect(bug.code).to.equal(Code.Internal);
      expect(bug.rawMessage).to.equal('internal error');
    } finally {
      close();
    }
  });

  it('aborts the call signal when the caller cancels', async () => {
    const { client, close } = direct();
    try {
      cancelledInCall = undefined;
      const controller = new AbortController();
      const pending = client.getJob({ jobId: 'wait' }, { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 150);
      expect(((await pending) as ConnectError).code).to.equal(Code.Canceled);
      for (let i = 0; i < 50 && cancelledInCall === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(cancelledInCall).to.be.instanceOf(ConnectError);
      expect((cancelledInCall as ConnectError).code).to.equal(Code.Canceled);
    } finally {
      close();
    }
  });

  it("aborts the call signal with DeadlineExceeded once the caller's deadline passes, and not before", async () => {
    const session = http2.connect(baseUrl);
    try {
      cancelledInCall = undefined;
      const started = Date.now();
      // A raw call: the deadline travels in its header and no client timer cancels the stream first.
      const stream = session.request({
        ':method': 'POST',
        ':path': '/trawl.v1.ScrapeService/GetJob',
        'content-type': 'application/proto',
        'connect-protocol-version': '1',
        'connect-timeout-ms': '200',
        'x-api-key': 'k1',
      });
      let status = 0;
      stream.on('response', (h) => (status = Number(h[':status'])));
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.end(toBinary(GetJobRequestSchema, create(GetJobRequestSchema, { jobId: 'wait' })));
      await once(stream, 'end');
      expect(Date.now() - started).to.be.at.least(190);
      expect(cancelledInCall).to.be.instanceOf(ConnectError);
      expect((cancelledInCall as ConnectError).code).to.equal(Code.DeadlineExceeded);
      expect(status).to.equal(200);
      const job = fromBinary(GetJobResponseSchema, Buffer.concat(chunks)).job!;
      expect(job.jobId).to.equal('wait');
      expect(job.attempts, 'the time left, as the implementation read it once the deadline had passed').to.be.within(-50, 0);
    } finally {
      session.close();
    }
  });

  it('refuses a malformed body and a malformed deadline with InvalidArgument', async () => {
    const session = http2.connect(baseUrl);
    try {
      const raw = async (headers: http2.OutgoingHttpHeaders, body: Buffer) => {
        const stream = session.request({ ':method': 'POST', ':path': '/trawl.v1.ScrapeService/GetJob', 'content-type': 'application/proto', 'connect-protocol-version': '1', ...headers });
        let status = 0;
        stream.on('response', (h) => (status = Number(h[':status'])));
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.end(body);
        await once(stream, 'end');
        return { status, json: JSON.parse(Buffer.concat(chunks).toString()) as { code: string } };
      };
      const badBody = await raw({}, Buffer.from([0xff, 0xff, 0xff]));
      expect(badBody.status).to.equal(400);
      expect(badBody.json.code).to.equal('invalid_argument');
      const badTimeout = await raw({ 'connect-timeout-ms': 'soon' }, Buffer.alloc(0));
      expect(badTimeout.status).to.equal(400);
      expect(badTimeout.json.code).to.equal('invalid_argument');
    } finally {
      session.close();
    }
  });

  it('leaves Connect JSON and gRPC calls to connect-node, behind the same interceptors', async () => {
    const json = createClient(ScrapeService, createConnectTransport({ baseUrl, httpVersion: '2', useBinaryFormat: false }));
    const viaJson = await json.getJob({ jobId: 'j3' }, { headers: { 'x-api-key': 'k3' } });
    expect(viaJson.job?.url).to.equal('caller of k3');
    expect(calls.at(-1)).to.equal('GetJob via k3');
    const grpc = createClient(ScrapeService, createGrpcTransport({ baseUrl }));
    let header: Headers | undefined;
    const viaGrpc = await grpc.getJob({ jobId: 'j4' }, { headers: { 'x-api-key': 'k4' }, onHeader: (h) => (header = h) });
    expect(viaGrpc.job?.url).to.equal('caller of k4');
    expect(header?.get('trawl-account-id')).to.equal('acct-7');
    const refused = (await grpc.getJob({ jobId: 'j5' }, { headers: { 'x-api-key': 'refused' } }).catch((e: unknown) => e)) as ConnectError;
    expect(refused.code).to.equal(Code.Unauthenticated);
  });
});
