/**
 * Sync scrapes of one local page through the whole stack (gateway, control
 * plane, NATS, fetch-t1 worker, pipeline, Redis, Postgres billing) against a
 * raw undici fetch of the same page, at concurrency 1 and 50.
 *
 *   npm run bench:scrape-latency [-- --requests 400 --page path/to/page.html --concurrency 1,50 --settle 15]
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { bootIsolatedStack, createAccountWithKey } from '../../deploy/local/isolated-stack.js';
import { ROOT } from '../../deploy/local/processes.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    page: { type: 'string' },
    concurrency: { type: 'string', default: '1,50' },
    // Seconds to wait after the stack is up: its other processes (browsers, pipeline threads, JIT) still start for a while and would load the first run.
    settle: { type: 'string', default: '15' },
  },
});
const total = Number(values.requests);
const levels = values.concurrency!.split(',').map(Number);

function loadPage(): Buffer {
  if (values.page) return readFileSync(values.page);
  // A real article page from the shared data set.
  const file = path.join(ROOT, '../shared/data/extraction/html/0a12df42d1764095989ab078ee0f940b.html.gz');
  return gunzipSync(readFileSync(file));
}

interface Stats {
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

async function runLoad(concurrency: number, count: number, once: () => Promise<boolean>): Promise<Stats> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const t0 = performance.now();
        const ok = await once().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: pick(0.5), p99: pick(0.99), rps: latencies.length / elapsed, errors };
}

const page = loadPage();
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
  res.end(page);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/article`;

process.stdout.write(`booting the stack...\n`);
const stack = await bootIsolatedStack({
  name: 'bench',
  redisDb: 8,
  env: { WORKER_CONCURRENCY: '64', LOG_LEVEL: 'error', DOMAIN_CONCURRENCY: '256' },
});
const { key } = await createAccountWithKey(stack, 1_000_000_000, { enterprise: true });

const viaStack = async () => {
  const res = await request(`${stack.baseUrl}/api/v1/scrape`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ url: pageUrl, formats: ['markdown'] }),
  });
  await res.body.text();
  return res.statusCode === 200;
};
const raw = async () => {
  const res = await request(pageUrl);
  await res.body.text();
  return res.statusCode === 200;
};

try {
  await new Promise((resolve) => setTimeout(resolve, Number(values.settle) * 1000));
  // Warm-up: connections, JIT, prepared plans.
  await runLoad(4, 40, viaStack);
  await runLoad(4, 40, raw);
  const fmt = (n: number) => n.toFixed(1).padStart(8);
  const ratio = (n: number) => (n >= 10 ? n.toFixed(1) : n.toPrecision(3)).padStart(8);
  process.stdout.write(`\npage: ${(page.length / 1024).toFixed(0)} KB, ${total} requests per run\n\n`);
  process.stdout.write(`${'client'.padEnd(22)} ${'conc'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'req/s'.padStart(8)} errors\n`);
  for (const c of levels) {
    const s = await runLoad(c, total, viaStack);
    const r = await runLoad(c, total, raw);
    process.stdout.write(`${'trawl sync scrape'.padEnd(22)} ${String(c).padStart(5)} ${fmt(s.p50)} ${fmt(s.p99)} ${fmt(s.rps)} ${s.errors}\n`);
    process.stdout.write(`${'raw undici fetch'.padEnd(22)} ${String(c).padStart(5)} ${fmt(r.p50)} ${fmt(r.p99)} ${fmt(r.rps)} ${r.errors}\n`);
    process.stdout.write(
      `${'ratio (trawl / raw)'.padEnd(22)} ${String(c).padStart(5)} ${ratio(s.p50 / r.p50)}x ${ratio(s.p99 / r.p99)}x ${ratio(s.rps / r.rps)}x\n\n`,
    );
  }
} finally {
  await stack.stop();
  server.close();
}
