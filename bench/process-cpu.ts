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

/** A process's CPU in a sample of several: its group (a process type, say), the time with its reaped children's, and its parent's key. */
export interface ProcessSample {
  group: string;
  /** withReapedMs, ms. */
  ms: number;
  /** The sample's key of the process that reaps it. */
  parentKey: string;
}

/**
 * CPU time spent between two samples of the same processes, by group. A
 * process that ended in between had its whole life's time added to its
 * parent's reaped time (a renderer's to its zygote's); what it had spent
 * before the first sample is taken off the nearest ancestor still running
 * again, so that it is not counted twice.
 */
export function cpuBetween(before: Map<string, ProcessSample>, after: Map<string, ProcessSample>): Map<string, number> {
  const byGroup = new Map<string, number>();
  const add = (group: string, ms: number) => byGroup.set(group, (byGroup.get(group) ?? 0) + ms);
  for (const [key, p] of after) add(p.group, p.ms - (before.get(key)?.ms ?? 0));
  for (const [key, p] of before) {
    if (after.has(key)) continue;
    // A parent that ended too passed the time on to its own.
    let holder = p.parentKey;
    while (!after.has(holder) && before.has(holder)) holder = before.get(holder)!.parentKey;
    const reaper = after.get(holder);
    if (reaper) add(reaper.group, -p.ms);
  }
  return byGroup;
}
