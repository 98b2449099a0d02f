import { startRole, stopProcess, type ManagedProcess, type Role } from './processes.js';

export interface SupervisorOptions {
  /** First wait before restarting a crashed process; doubles on each crash in a row. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** A process that stayed up this long counts as healthy again: its next crash restarts it after initialBackoffMs. */
  healthyAfterMs: number;
}

export const DEFAULT_SUPERVISION: SupervisorOptions = { initialBackoffMs: 1_000, maxBackoffMs: 30_000, healthyAfterMs: 60_000 };

export interface Supervisor {
  /** Restarts so far, per role. */
  restarts(role: Role): number;
  current(role: Role): ManagedProcess | undefined;
  /** Stops every process; nothing is restarted after this. */
  stopAll(): Promise<void>;
}

/**
 * Keeps every role running: a process that exits while the stack is up is
 * logged and started again after a backoff that doubles with each crash in a
 * row (1 s, 2 s, 4 s … up to 30 s) and resets once the process has stayed up
 * for a minute. Only stopAll (Ctrl-C) stops the stack.
 */
export function superviseRoles(
  roles: readonly Role[],
  env: NodeJS.ProcessEnv,
  output: (role: Role, line: string) => void,
  opts: SupervisorOptions = DEFAULT_SUPERVISION,
): Supervisor {
  const running = new Map<Role, ManagedProcess>();
  const restarts = new Map<Role, number>();
  const timers = new Set<NodeJS.Timeout>();
  let stopping = false;

  const launch = (role: Role, backoffMs: number) => {
    const startedAt = Date.now();
    const p = startRole(role, env, output);
    running.set(role, p);
    void p.exited.then((code) => {
      if (stopping) return;
      const healthy = Date.now() - startedAt >= opts.healthyAfterMs;
      const wait = healthy ? opts.initialBackoffMs : backoffMs;
      restarts.set(role, (restarts.get(role) ?? 0) + 1);
      output(role, `exited with ${p.child.signalCode ?? `code ${code}`}; restarting in ${(wait / 1000).toFixed(1)} s`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopping) launch(role, Math.min(opts.maxBackoffMs, wait * 2));
      }, wait);
      timers.add(timer);
    });
  };
  for (const role of roles) launch(role, opts.initialBackoffMs);

  return {
    restarts: (role) => restarts.get(role) ?? 0,
    current: (role) => running.get(role),
    async stopAll() {
      stopping = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([...running.values()].map((p) => stopProcess(p)));
    },
  };
}
