/**
 * The reference points of the throughput benchmark: bare Koa and
 * @koa/router with one JSON route, in a process of its own. Prints its port.
 *
 * With `--call <port>`, the route first makes one unary call to the
 * benchmark's HTTP/2 backend on that port (bare-backend.ts) over a single
 * session, as the gateway calls the control plane, and answers once the
 * call's body is read: the least a server that makes one call to another
 * process for each request can do, with no decoding, authentication or
 * lookup on either side.
 */
import http2 from 'node:http2';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import Router from '@koa/router';

const { values } = parseArgs({ options: { call: { type: 'string' } } });
const REQUEST = Buffer.alloc(48, 0x01);

function caller(port: number): () => Promise<number> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  return () =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/trawl.v1.Scrape/GetJob', 'content-type': 'application/proto' });
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      stream.once('end', () => resolve(bytes));
      stream.once('error', reject);
      stream.end(REQUEST);
    });
}

const call = values.call ? caller(Number(values.call)) : undefined;
const app = new Koa();
const router = new Router();
router.get('/live', async (ctx) => {
  if (call) await call();
  ctx.body = { status: 'alive' };
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
