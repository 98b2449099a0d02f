/**
 * The server side of `bench:control-plane-calls`, in a process of its own:
 * ScrapeService.GetJob answering a fixed job, either through connect-node's
 * adapter alone (`adapter`) or through the control plane's direct handler in
 * front of it (`direct`), as control-plane/server.ts serves it. Prints its
 * port; on "mark" and "report" messages, answers the CPU time per call
 * between them.
 */
import http2 from 'node:http2';
import { create } from '@bufbuild/protobuf';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { createUnaryHandler, recordUnaryMethods } from '../../control-plane/unary-handler.js';
import { GetJobResponseSchema, JobSchema, ScrapeService } from '../../proto/gen/trawl/v1/scrape_pb.js';

const mode = process.argv[2];
const job = create(JobSchema, {
  jobId: '0b6f7d1e-8a0e-4c59-9d43-2b7d4c1f0a11',
  status: 'succeeded',
  url: 'http://127.0.0.1:1234/article',
  mode: 'auto',
  formats: ['markdown'],
  sync: true,
  createdAt: new Date().toISOString(),
  tier: '1',
  attempts: 1,
});
let calls = 0;
const routes = (router: ConnectRouter) =>
  router.service(ScrapeService, {
    async getJob(_req, ctx) {
      calls++;
      ctx.responseHeader.set('trawl-account-id', 'acct');
      return create(GetJobResponseSchema, { job });
    },
  });

let server: http2.Http2Server;
if (mode === 'direct') {
  const methods: Parameters<typeof recordUnaryMethods>[0] = new Map();
  const fallback = connectNodeAdapter({ acceptCompression: [], routes: (router) => routes(recordUnaryMethods(methods, router)) });
  server = http2.createServer(createUnaryHandler({ methods, interceptors: [], fallback }));
} else {
  server = http2.createServer(connectNodeAdapter({ acceptCompression: [], routes }));
}
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));

let markedCalls = 0;
let markedCpu = process.cpuUsage();
process.on('message', (message) => {
  if (message === 'mark') {
    markedCalls = calls;
    markedCpu = process.cpuUsage();
  } else if (message === 'report') {
    const used = process.cpuUsage(markedCpu);
    process.send!({ usPerCall: (used.user + used.system) / (calls - markedCalls) });
  }
});
process.on('SIGTERM', () => process.exit(0));
