/**
 * Tier 3's page loading alone, without the stack around it: the stealth
 * profile's Chromium (behind the guarded SOCKS proxy, every tab filtered),
 * loading locally served JavaScript shells a few at a time, for one account
 * (its tabs kept between tasks, decision 0026) or for a new account every
 * round (its first tabs opened fresh). Each round prints pages/s and
 * Chromium's CPU a page by process type from /proc (renderers that exited
 * are counted in the zygote that reaped them), and the loading process's own.
 *
 *   npm run bench:stealth-pages [-- --pages 32 --slots 4 --rounds 3 --owner same|new]
 *
 * Linux only (/proc). TRAWL_BENCH_REDIS_DB names the Redis database (default 8; nothing is written unless a
 * page asks for an artifact, which these do not).
 */
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '../../common/config.js';
import { redisKeys } from '../../common/redis-keys.js';
import { createGuardedConnect } from '../../common/ssrf-guard.js';
import { stealthProfile } from '../../workers/fetching/browser-profile.js';
import { createBrowserLoader } from '../../workers/fetching/browser-loader.js';
import { startGuardedSocksProxy } from '../../workers/fetching/guarded-socks-proxy.js';
import { cpuBetween, processCpu, type ProcessSample } from '../process-cpu.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '32' },
    slots: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    owner: { type: 'string', default: 'same' },
  },
});
const pages = Number(values.pages);
const slots = Number(values.slots);
const rounds = Number(values.rounds);
if (values.owner !== 'same' && values.owner !== 'new') throw new Error(`--owner is same or new, not ${values.owner}`);

const article = (n: number) =>
  `<article><h1>Bulletin ${n}</h1>${Array.from({ length: 10 }, (_, i) => `<p>Paragraph ${i + 1} of bulletin ${n}: the survey vessel charted ${n * 7 + i} soundings along the eastern channel.</p>`).join('')}</article>`;
const site = http.createServer((req, res) => {
  const n = Number(/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Bulletin ${n}</title></head><body><nav><a href="/">Home</a></nav><div id="root"></div><script>document.getElementById('root').innerHTML = ${JSON.stringify(article(n))};</script></body></html>`);
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;

const config = loadConfig({ ...process.env, TRAWL_BROWSER_CONCURRENCY: String(slots), TRAWL_SSRF_ALLOW_CIDRS: '127.0.0.1/32' });
const redis = new Redis(config.redisUrl, { db: Number(process.env.TRAWL_BENCH_REDIS_DB ?? 8) });
const proxy = await startGuardedSocksProxy({ connect: createGuardedConnect(config.ssrf) });
const loader = createBrowserLoader({ config, redis, keys: redisKeys('bench-stealth'), profile: stealthProfile(), proxyUrl: proxy.url, warmPages: true });
await loader.launch();

/** CPU time of this process and of every Chromium process, by `${pid} ${type}`. */
function cpuByProcess(): Map<string, ProcessSample> {
  const found = new Map<number, { group: string; ms: number; parentPid: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const cpu = processCpu(pid);
    if (!cpu) continue;
    let type: string;
    if (pid === process.pid) type = 'node';
    else if (/chrom/i.test(cpu.name)) type = /--type=([a-z-]+)/.exec(commandLine(pid))?.[1] ?? 'browser';
    else continue;
    found.set(pid, { group: type, ms: cpu.withReapedMs, parentPid: cpu.parentPid });
  }
  const key = (pid: number) => `${pid} ${found.get(pid)?.group ?? 'other'}`;
  return new Map([...found].map(([pid, p]) => [key(pid), { group: p.group, ms: p.ms, parentKey: key(p.parentPid) }]));
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // The process ended while it was read.
    return '';
  }
}

let n = 0;
try {
  process.stdout.write(`${pages} pages a round, ${slots} at a time, ${values.owner === 'same' ? 'one account' : 'a new account every round'}\n`);
  // Round 0 warms Chromium, the proxy and the JIT, and is not printed.
  for (let round = 0; round <= rounds; round++) {
    const owner = values.owner === 'same' ? 'account' : `account-${round}`;
    const before = cpuByProcess();
    const started = performance.now();
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: slots }, async () => {
        while (next < pages) {
          next++;
          const url = `${base}/bulletin/${n++}`;
          const outcome = await loader.load(
            { url, method: 'GET', body: undefined, contentType: '', timeoutMs: 30_000, signal: new AbortController().signal, cookies: {}, acceptMimes: [], headers: {}, followRedirects: true, owner },
            undefined,
          );
          if (outcome.kind !== 'ok') failed++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const byType = cpuBetween(before, cpuByProcess());
    const chromiumMs = [...byType].filter(([type]) => type !== 'node').reduce((sum, [, ms]) => sum + ms, 0);
    if (round === 0) continue;
    const parts = [...byType].map(([type, ms]) => `${type} ${(ms / pages).toFixed(0)}`).join(', ');
    process.stdout.write(`round ${round}: ${(pages / seconds).toFixed(2)} pages/s, ${failed} failed, Chromium ${(chromiumMs / pages).toFixed(0)} ms of CPU a page (${parts})\n`);
  }
} finally {
  await loader.close();
  await proxy.close();
  redis.disconnect();
  site.close();
}
