import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const twoUp = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** True when this file runs from the compiled tree in dist/. */
const RUNNING_COMPILED = path.basename(twoUp) === 'dist';
/** The repository root, whether this file runs from the sources or from dist/. */
export const ROOT = RUNNING_COMPILED ? path.dirname(twoUp) : twoUp;

/** Every process of the system, each started on its own. */
export const ROLES = {
  'control-plane': 'control-plane/main.ts',
  gateway: 'gateway/main.ts',
  'fetch-t1': 'workers/fetch-t1/worker.ts',
  'fetch-t2': 'workers/fetch-t2/worker.ts',
  'fetch-t3': 'workers/fetch-t3/worker.ts',
  browser: 'workers/browser/worker.ts',
  captcha: 'workers/captcha/worker.ts',
  extract: 'workers/extract/worker.ts',
  map: 'workers/map/worker.ts',
  document: 'workers/document/worker.ts',
  crawl: 'workers/crawl/worker.ts',
  webhooks: 'workers/webhooks/worker.ts',
  analytics: 'analytics/main.ts',
} as const;

export type Role = keyof typeof ROLES;

export interface ManagedProcess {
  role: Role;
  child: ChildProcess;
  exited: Promise<number | null>;
}

export function startRole(
  role: Role,
  env: NodeJS.ProcessEnv,
  output: (role: Role, line: string) => void,
): ManagedProcess {
  // TRAWL_NODE_ARGS passes extra Node flags to every process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" for profiling,
  // or only to the roles TRAWL_NODE_ARGS_ROLES names (comma-separated, e.g. "gateway,control-plane").
  const only = (env['TRAWL_NODE_ARGS_ROLES'] ?? '').split(',').map((r) => r.trim()).filter(Boolean);
  const extra = only.length === 0 || only.includes(role) ? (env['TRAWL_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean) : [];
  const child = spawn(process.execPath, [...extra, ...entryPoint(role, env)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        output(role, buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { role, child, exited };
}

/**
 * How a role is started: the compiled JavaScript in dist/ (`npm start`, the
 * benchmarks, production: TRAWL_RUNTIME=compiled, built by `npm run build`),
 * or the TypeScript sources through the tsx loader (tests and development).
 */
function entryPoint(role: Role, env: NodeJS.ProcessEnv): string[] {
  const runtime = env['TRAWL_RUNTIME'] ?? (RUNNING_COMPILED ? 'compiled' : 'tsx');
  if (runtime === 'compiled') return [path.join('dist', ROLES[role].replace(/\.ts$/, '.js'))];
  if (runtime !== 'tsx') throw new Error(`TRAWL_RUNTIME must be compiled or tsx, got "${runtime}"`);
  return ['--import', 'tsx', ROLES[role]];
}

export async function stopProcess(p: ManagedProcess, timeoutMs = 15_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  await p.exited;
  clearTimeout(timer);
}

/** Resolves when GET url answers 200, or rejects after timeoutMs. */
export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = new Error(`${url} answered ${res.status}`);
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready: ${String(last)}`);
}
