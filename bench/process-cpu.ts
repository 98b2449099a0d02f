import { readFileSync } from 'node:fs';

/** A process as /proc/<pid>/stat gives it: its command name and CPU time. */
export interface ProcessCpu {
  name: string;
  /** The parent's pid: the process that reaps it, whose reaped time then holds its whole lifetime's. */
  parentPid: number;
  /** User and system time so far, ms. */
  ownMs: number;
  /** ownMs and the time of the children it has reaped (an exited renderer's, in its zygote), ms. */
  withReapedMs: number;
}

/** Clock ticks of /proc are 10 ms on Linux (USER_HZ 100). */
const TICK_MS = 10;

/** CPU time of a process so far, from /proc/<pid>/stat (Linux); null when it has ended. */
export function processCpu(pid: number): ProcessCpu | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name stands in parentheses and may hold spaces; the fields follow the last ')'.
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return { name, parentPid: Number(fields[1]), ownMs: own * TICK_MS, withReapedMs: (own + Number(fields[13]) + Number(fields[14])) * TICK_MS };
}
