/**
 * Gateway throughput under load: GET /api/v1/jobs/{id} (through the control
 * plane) and GET /api/v1/health/live (the gateway alone) against a bare Koa +
 * @koa/router server with one JSON route, each with autocannon at 50
 * connections. A second reference, the same bare server making one HTTP/2 call
 * to a bare backend for each request (bare-server.ts --call), shows what share
 * of bare Koa any server reaches that calls another process per request, as the
 * gateway calls the control plane. GET /api/v1/jobs/{id} runs with the rate limits on (a key whose
 * custom enterprise limits never trip, so every call still runs the limiter)
 * and on a second stack started with TRAWL_RATE_LIMITS=off, in turns over
 * several rounds: the ratio is what the limiter costs (goal: at least 0.9).
 *
 *   npm run bench:api-throughput [-- --duration 10 --connections 50 --rounds 3 --settle 15 --only jobs]
 *
 * Beside each rate, the limiter rounds print the CPU time per request of the
 * gateway, the control plane and Redis (from /proc and INFO cpu): on a
 * shared machine whose speed varies from one round to the next, it is the
 * figure that does not move with the neighbours.
 *
 * TRAWL_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every process of the stack.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { request } from 'undici';
import { bootIsolatedStack, createAccountWithKey, type IsolatedStack } from '../../deploy/local/isolated-stack.js';
import { ROOT } from '../../deploy/local/processes.js';
import { processCpu } from '../process-cpu.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    // Turns of the limiter comparison (limits on, then off, the order swapped each round).
    rounds: { type: 'string', default: '3' },
    // Seconds to wait after the second stack is up: its processes' start (browsers, pipeline threads, JIT) would load the first rounds.
    settle: { type: 'string', default: '15' },
    // One target alone (jobs, live, bare or call; bare runs both reference servers), e.g. to profile it.
    only: { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);

const PAGE = `<!doctype html><html><head><title>Bench article</title></head><body><article><h1>Bench article</h1>${'<p>Some text for the page. </p>'.repeat(50)}</article></body></html>`;

const sig = (n: number) => String(Number(n.toPrecision(3)));

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** Requests answered in the measured load. */
  total: number;
}

/** CPU time (ms) of a process so far, user and system. */
function processCpuMs(pid: number | undefined): number {
  return (pid === undefined ? undefined : processCpu(pid)?.ownMs) ?? NaN;
}

/** Redis's CPU time (ms) so far, user and system, from INFO cpu. */
async function redisCpuMs(stack: IsolatedStack): Promise<number> {
  const info = await stack.redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

/** CPU time per request (µs) of the stack's gateway, control plane and Redis over a load. */
interface CpuPerRequest {
  gateway: number;
  controlPlane: number;
  redis: number;
}

async function cpuSnapshot(stack: IsolatedStack): Promise<CpuPerRequest> {
  return { gateway: processCpuMs(stack.pid('gateway')), controlPlane: processCpuMs(stack.pid('control-plane')), redis: await redisCpuMs(stack) };
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Figures> {
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failures: r.errors + r.timeouts + r.non2xx, total: r.requests.total };
}

/** One of the benchmark's reference servers in a process of its own: the port it prints, and how to stop it. */
async function startReference(file: string, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/api-throughput', file), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { port: Number(chunk.toString().trim()), stop: () => child.kill('SIGTERM') };
}

/** A key on an enterprise account whose limits never trip, and the URL of a finished scrape of it. */
async function finishedJob(stack: IsolatedStack): Promise<{ url: string; headers: Record<string, string> }> {
  const { accountId, key } = await createAccountWithKey(stack, 1_000_000_000, { enterprise: true });
  await stack.pool.query(
    `UPDATE accounts SET limit_requests_per_minute = 2000000000, limit_burst_per_second = 2000000000,
                         limit_concurrent_requests = 1000000, limit_dispatch_per_minute = 1000000 WHERE id = $1`,
    [accountId],
  );
  const scrape = await request(`${stack.baseUrl}/api/v1/scrape`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ url: pageUrl, formats: ['markdown'] }),
  });
  const scraped = (await scrape.body.json()) as { job_id?: string };
  if (scrape.statusCode !== 200 || !scraped.job_id) throw new Error(`the setup scrape answered ${scrape.statusCode}`);
  return { url: `${stack.baseUrl}/api/v1/jobs/${scraped.job_id}`, headers: { 'x-api-key': key } };
}

const site = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(PAGE);
});
site.listen(0, '127.0.0.1');
await once(site, 'listening');
const pageUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/article`;

process.stdout.write('booting the stack...\n');
// ClickHouse database names take no hyphen, so the stack is named bench_api.
const stack = await bootIsolatedStack({ name: 'bench_api', redisDb: 9, env: { LOG_LEVEL: 'error' } });
const bare = await startReference('bare-server.ts');
const backend = await startReference('bare-backend.ts');
const oneCall = await startReference('bare-server.ts', ['--call', String(backend.port)]);
// The stack without the limiter, when the jobs route is measured.
let limitsOff: IsolatedStack | undefined;
try {
  const job = await finishedJob(stack);
  const targets: Array<[string, string, Record<string, string>]> = [
    [`GET /api/v1/jobs/{id}`, job.url, job.headers],
    ['GET /api/v1/health/live', `${stack.baseUrl}/api/v1/health/live`, {}],
    ['bare Koa + @koa/router', `http://127.0.0.1:${bare.port}/live`, {}],
    ['bare Koa + one HTTP/2 call', `http://127.0.0.1:${oneCall.port}/live`, {}],
  ];
  const results: Figures[] = [];
  for (const [name, url, headers] of targets) {
    if (values.only && !name.includes(values.only)) {
      results.push({ rps: NaN, p50: NaN, p99: NaN, failures: 0, total: 0 });
      continue;
    }
    await load(url, headers, warmup);
    results.push(await load(url, headers, duration));
  }

  process.stdout.write(`\nautocannon: ${connections} connections, ${duration} s per target after ${warmup} s of warm-up\n\n`);
  process.stdout.write(`${'target'.padEnd(26)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} failures\n`);
  targets.forEach(([name], i) => {
    const r = results[i]!;
    process.stdout.write(`${name.padEnd(26)} ${sig(r.rps).padStart(9)} ${sig(r.p50).padStart(8)} ${sig(r.p99).padStart(8)} ${r.failures}\n`);
  });
  const [jobs, live, bareFigures, oneCallFigures] = results as [Figures, Figures, Figures, Figures];
  process.stdout.write(
    `\nratio jobs / bare: ${sig(jobs.rps / bareFigures.rps)}\nratio live / bare: ${sig(live.rps / bareFigures.rps)}\n` +
      `ratio one call / bare: ${sig(oneCallFigures.rps / bareFigures.rps)} (the most a server that calls another process for each request reached)\n` +
      `ratio jobs / one call: ${sig(jobs.rps / oneCallFigures.rps)}\n`,
  );

  if (!values.only || 'jobs'.includes(values.only)) {
    // The limiter's cost: the same route on a second stack started with TRAWL_RATE_LIMITS=off, both stacks up
    // (the one not under load sits idle) and measured in turns, the order swapped each round, so neither
    // gains from running first or later.
    process.stdout.write('\nbooting a stack with TRAWL_RATE_LIMITS=off...\n');
    limitsOff = await bootIsolatedStack({ name: 'bench_api_off', redisDb: 10, env: { LOG_LEVEL: 'error', TRAWL_RATE_LIMITS: 'off' } });
    const unlimited = await finishedJob(limitsOff);
    await new Promise((resolve) => setTimeout(resolve, Number(values.settle) * 1000));
    const on: Figures[] = [];
    const off: Figures[] = [];
    const cpu = new Map<Figures[], CpuPerRequest[]>([
      [on, []],
      [off, []],
    ]);
    for (let round = 0; round < rounds; round++) {
      const turns: Array<[Figures[], IsolatedStack, { url: string; headers: Record<string, string> }]> = [
        [on, stack, job],
        [off, limitsOff, unlimited],
      ];
      if (round % 2 === 1) turns.reverse();
      for (const [into, measured, target] of turns) {
        await load(target.url, target.headers, warmup);
        const before = await cpuSnapshot(measured);
        const figures = await load(target.url, target.headers, duration);
        const after = await cpuSnapshot(measured);
        const per = (k: keyof CpuPerRequest) => ((after[k] - before[k]) * 1000) / Math.max(1, figures.total);
        into.push(figures);
        cpu.get(into)!.push({ gateway: per('gateway'), controlPlane: per('controlPlane'), redis: per('redis') });
      }
    }
    const cpuText = (c: CpuPerRequest) => `CPU/request ${sig(c.gateway + c.controlPlane + c.redis)} µs (gateway ${sig(c.gateway)}, control plane ${sig(c.controlPlane)}, Redis ${sig(c.redis)})`;
    process.stdout.write(`\nGET /api/v1/jobs/{id}, ${rounds} rounds of ${duration} s each, order swapped each round:\n`);
    for (let round = 0; round < rounds; round++) {
      const [a, b] = [on[round]!, off[round]!];
      process.stdout.write(
        `  round ${round + 1}: rate limits on ${sig(a.rps)} req/s (p50 ${sig(a.p50)} ms, failures ${a.failures}), off ${sig(b.rps)} req/s (p50 ${sig(b.p50)} ms, failures ${b.failures}), ratio ${sig(a.rps / b.rps)}\n` +
          `           on: ${cpuText(cpu.get(on)![round]!)}\n           off: ${cpuText(cpu.get(off)![round]!)}\n`,
      );
    }
    const cpuTotal = (xs: CpuPerRequest[]) => xs.reduce((n, c) => n + c.gateway + c.controlPlane + c.redis, 0) / xs.length;
    process.stdout.write(
      `CPU per request, limits off / on: ${sig(cpuTotal(cpu.get(off)!) / cpuTotal(cpu.get(on)!))} (the throughput ratio a machine bound by these three processes would show)\n`,
    );
    const ratios = on.map((a, i) => a.rps / off[i]!.rps).sort((x, y) => x - y);
    const total = (xs: Figures[]) => xs.reduce((n, f) => n + f.rps, 0);
    process.stdout.write(
      `ratio limits on / off: ${sig(total(on) / total(off))} over all rounds (rounds ${sig(ratios[0]!)}–${sig(ratios[ratios.length - 1]!)}; goal: at least 0.9)\n`,
    );
  }
} finally {
  bare.stop();
  oneCall.stop();
  backend.stop();
  await Promise.all([stack.stop(), limitsOff?.stop()]);
  site.close();
}
