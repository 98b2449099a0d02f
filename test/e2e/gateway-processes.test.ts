import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { expect } from 'chai';
import { bootIsolatedStack, type IsolatedStack } from '../../deploy/local/isolated-stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pids of the gateway processes serving `port`, and which of them is the primary (its parent is not one of them). */
function gatewayProcesses(port: number): { primary: number[]; workers: number[] } {
  const found: Array<{ pid: number; ppid: number }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes('gateway/main')) continue;
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`GATEWAY_PORT=${port}`)) continue;
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      found.push({ pid: Number(entry), ppid });
    } catch {
      // The process ended while it was read.
    }
  }
  const pids = new Set(found.map((p) => p.pid));
  return { primary: found.filter((p) => !pids.has(p.ppid)).map((p) => p.pid), workers: found.filter((p) => pids.has(p.ppid)).map((p) => p.pid) };
}

/** The inodes of the sockets listening on `port` (IPv4 and IPv6), from /proc/net. */
function listeningSockets(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; st 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/**
 * Whether a process holds one of the port's listening sockets. A gateway
 * process is handed the shared socket when it starts listening: until then
 * the supervising process closes the socket if the only other holder dies,
 * as Node's cluster does.
 */
function holdsListeningSocket(pid: number, port: number): boolean {
  const inodes = listeningSockets(port);
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

describe('several gateway processes on one port (TRAWL_GATEWAY_PROCESSES)', function () {
  this.timeout(300_000);
  let stack: IsolatedStack;
  let port: number;
  before(async () => {
    stack = await bootIsolatedStack({
      name: `${process.env.TRAWL_TEST_STACK ?? 'test'}_gwprocs`,
      redisDb: 12,
      env: { LOG_LEVEL: 'warn', TRAWL_GATEWAY_PROCESSES: '2' },
    });
    port = Number(new URL(stack.baseUrl).port);
  });
  after(() => stack?.stop());

  // A new connection each time, so the supervising process hands each to a gateway process in turn.
  const live = async () => (await fetch(`${stack.baseUrl}/api/v1/health/live`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) })).status;

  it('serves from two processes under one supervising process, and replaces one that dies', async () => {
    const started = gatewayProcesses(port);
    expect(started.primary).to.have.length(1);
    expect(started.workers).to.have.length(2);
    // Both listening: a process still starting has not been handed the shared socket yet.
    const listening = Date.now() + 60_000;
    while (!started.workers.every((pid) => holdsListeningSocket(pid, port)) && Date.now() < listening) await sleep(100);
    expect(started.workers.map((pid) => holdsListeningSocket(pid, port)), 'both processes listening').to.deep.equal([true, true]);
    for (let i = 0; i < 10; i++) expect(await live()).to.equal(200);

    process.kill(started.workers[0]!, 'SIGKILL');
    // Once the killed process is gone (until the signal lands it may still accept a connection, which is then reset,
    // as with any process killed mid-request), the other process goes on answering meanwhile.
    const reaped = Date.now() + 10_000;
    while (existsSync(`/proc/${started.workers[0]}`) && Date.now() < reaped) await sleep(20);
    expect(existsSync(`/proc/${started.workers[0]}`), 'the killed process reaped').to.equal(false);
    for (let i = 0; i < 10; i++) expect(await live()).to.equal(200);
    let now = gatewayProcesses(port);
    const until = Date.now() + 20_000;
    while ((now.workers.length < 2 || now.workers.includes(started.workers[0]!)) && Date.now() < until) {
      await sleep(200);
      now = gatewayProcesses(port);
    }
    expect(now.primary).to.deep.equal(started.primary);
    expect(now.workers).to.have.length(2);
    expect(now.workers).to.not.include(started.workers[0]);
    expect(now.workers).to.include(started.workers[1]);
    await sleep(2_000);
    for (let i = 0; i < 10; i++) expect(await live()).to.equal(200);
  });

  it('stops every process on SIGTERM', async () => {
    const { primary, workers } = gatewayProcesses(port);
    expect(await stack.kill('gateway', 'SIGTERM')).to.equal(0);
    for (const pid of [...primary, ...workers]) expect(() => process.kill(pid, 0), `process ${pid}`).to.throw();
  });
});
