/**
 * The far end of the benchmark's one-call reference: an HTTP/2 server in a
 * process of its own that answers every stream with the same 1 KB body, the
 * size of an ended job in wire form, as soon as the request has been read.
 * Nothing is decoded or looked up. Prints its port.
 */
import http2 from 'node:http2';

const BODY = Buffer.alloc(1024, 0x61);
const server = http2.createServer();
server.on('stream', (stream) => {
  stream.resume();
  stream.once('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/proto', 'content-length': String(BODY.byteLength) });
    stream.end(BODY);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
