/**
 * The reference point of the throughput benchmark: bare Koa and @koa/router
 * with one JSON route, in a process of its own. Prints its port.
 */
import Koa from 'koa';
import Router from '@koa/router';

const app = new Koa();
const router = new Router();
router.get('/live', (ctx) => {
  ctx.body = { status: 'alive' };
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
