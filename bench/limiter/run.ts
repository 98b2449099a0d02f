/**
 * The per-key limiter alone: admissions per second and what each costs, in
 * this process's CPU and in Redis's (from INFO commandstats), with N calls
 * of one key in progress at once, each released a turn after it was
 * admitted, as the control plane does under load.
 *
 *   npm run bench:limiter [-- --calls 50000 --concurrency 50 --rounds 3]
 *
 * Redis is the configured one (REDIS_URL), database 15 unless
 * TRAWL_BENCH_REDIS_DB says otherwise; the keys are removed afterwards.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { balanceTier } from '../../common/balance-tiers.js';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { redisKeys } from '../../common/redis-keys.js';
import { createKeyLimiter } from '../../control-plane/limits/key-limiter.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
  },
});
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);

const url = new URL(loadConfig(process.env).redisUrl);
url.pathname = `/${process.env.TRAWL_BENCH_REDIS_DB ?? '15'}`;
const redis = new Redis(url.toString(), { enableAutoPipelining: true });
const prefix = `bench_limiter_${randomUUID().slice(0, 8)}_`;
const limiter = createKeyLimiter(redis, redisKeys(prefix), { leaseTtlMs: 15_000, log: createLogger('bench-limiter', 'error') });
// Limits that never trip: every call runs the whole decision.
const tier = { ...balanceTier(0, true), requestsPerMinute: 2_000_000_000, burstPerSecond: 2_000_000_000, concurrentRequests: 1_000_000 };

async function scriptRuns(): Promise<{ calls: number; usec: number }> {
  const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(await redis.info('commandstats'));
  return m ? { calls: Number(m[1]), usec: Number(m[2]) } : { calls: 0, usec: 0 };
}

process.stdout.write(`${calls} admissions of one key, ${concurrency} in progress at once\n\n`);
process.stdout.write(`${'round'.padEnd(6)} ${'admits/s'.padStart(9)} ${'node µs'.padStart(8)} ${'redis µs'.padStart(9)} ${'calls/run'.padStart(9)}\n`);
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    const keyId = randomUUID();
    let started = 0;
    const worker = async () => {
      while (started < calls) {
        started++;
        const call = await limiter.admit(keyId, tier, 1);
        await new Promise((resolve) => setImmediate(resolve));
        call.release();
      }
    };
    const runs0 = await scriptRuns();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const runs1 = await scriptRuns();
    const runs = runs1.calls - runs0.calls;
    process.stdout.write(
      `${String(round).padEnd(6)} ${(calls / seconds).toFixed(0).padStart(9)} ${((cpu.user + cpu.system) / calls).toFixed(1).padStart(8)} ${((runs1.usec - runs0.usec) / calls).toFixed(1).padStart(9)} ${(calls / runs).toFixed(1).padStart(9)}\n`,
    );
  }
} finally {
  limiter.stop();
  const stale = await redis.keys(`${prefix}*`);
  if (stale.length > 0) await redis.del(...stale);
  redis.quit();
}
