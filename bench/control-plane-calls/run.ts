/**
 * What one gateway-to-control-plane call costs, without the rest of the
 * stack: a client process making ScrapeService.GetJob calls, 50 in flight,
 * against a server process, in two set-ups run in turns (the order swapped
 * each round):
 *
 * - connect: connect-node's Connect transport (binary) against its adapter,
 *   as the gateway and control plane called each other before decision 0032;
 * - trawl: the gateway's transport (gateway/control-plane-transport.ts)
 *   against the control plane's direct handler (control-plane/unary-handler.ts).
 *
 * Prints calls/s and the CPU time per call of each side (process.cpuUsage).
 *
 *   npm run bench:control-plane-calls [-- --seconds 6 --rounds 3 --concurrency 50]
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ROOT } from '../../deploy/local/processes.js';
import { createControlPlaneTransport } from '../../gateway/control-plane-transport.js';
import { ScrapeService } from '../../proto/gen/trawl/v1/scrape_pb.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '50' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

interface Figures {
  callsPerSecond: number;
  clientUs: number;
  serverUs: number;
}

const SETUPS = {
  connect: { server: 'adapter', transport: (baseUrl: string) => createConnectTransport({ baseUrl, httpVersion: '2', useBinaryFormat: true, acceptCompression: [], sendCompression: undefined }) },
  trawl: { server: 'direct', transport: (baseUrl: string) => createControlPlaneTransport(baseUrl) },
} satisfies Record<string, { server: string; transport: (baseUrl: string) => Transport }>;

async function measure(name: keyof typeof SETUPS): Promise<Figures> {
  const setup = SETUPS[name];
  const child = fork(path.join(ROOT, 'bench/control-plane-calls/server.ts'), [setup.server], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const transport = setup.transport(`http://127.0.0.1:${Number(chunk.toString().trim())}`);
    const client = createClient(ScrapeService, transport);
    let stop = false;
    let calls = 0;
    const caller = async () => {
      while (!stop) {
        let account: string | null = null;
        const answer = await client.getJob(
          { jobId: '0b6f7d1e-8a0e-4c59-9d43-2b7d4c1f0a11' },
          { timeoutMs: 30_000, headers: { 'x-api-key': 'sk_live_bench', 'x-request-id': 'bench' }, onHeader: (h) => (account = h.get('trawl-account-id')) },
        );
        if (!answer.job || account !== 'acct') throw new Error('an answer without its job or headers');
        calls++;
      }
    };
    const callers = Array.from({ length: concurrency }, caller);
    // Warm-up: the session, the JIT.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    child.send('mark');
    const startCalls = calls;
    const startCpu = process.cpuUsage();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
    const used = process.cpuUsage(startCpu);
    const made = calls - startCalls;
    const elapsed = (performance.now() - started) / 1_000;
    child.send('report');
    const [report] = (await once(child, 'message')) as [{ usPerCall: number }];
    stop = true;
    await Promise.all(callers);
    return { callsPerSecond: made / elapsed, clientUs: (used.user + used.system) / made, serverUs: report.usPerCall };
  } finally {
    child.kill('SIGTERM');
  }
}

const sig = (n: number) => String(Number(n.toPrecision(3)));
process.stdout.write(`ScrapeService.GetJob, ${concurrency} calls in flight, ${seconds} s a turn, ${rounds} rounds\n\n`);
process.stdout.write(`${'round'.padEnd(7)}${'set-up'.padEnd(9)}${'calls/s'.padStart(9)}${'client µs'.padStart(11)}${'server µs'.padStart(11)}\n`);
const ratios: number[] = [];
for (let round = 1; round <= rounds; round++) {
  const order: Array<keyof typeof SETUPS> = round % 2 === 1 ? ['connect', 'trawl'] : ['trawl', 'connect'];
  const figures: Partial<Record<keyof typeof SETUPS, Figures>> = {};
  for (const name of order) {
    const f = await measure(name);
    figures[name] = f;
    process.stdout.write(`${String(round).padEnd(7)}${name.padEnd(9)}${sig(f.callsPerSecond).padStart(9)}${sig(f.clientUs).padStart(11)}${sig(f.serverUs).padStart(11)}\n`);
  }
  ratios.push(figures.trawl!.callsPerSecond / figures.connect!.callsPerSecond);
}
process.stdout.write(`\ncalls/s, trawl / connect: ${ratios.map((r) => r.toFixed(2)).join(', ')}\n`);
process.exit(0);
