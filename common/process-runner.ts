import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { loadConfig, type TrawlConfig } from './config.js';
import { connectNats } from './connections.js';
import { ensureStreams } from './jetstream.js';
import { createLogger, type Logger } from './logger.js';
import { natsNames, type NatsNames } from './nats-names.js';
import { useBufferTextEncoding } from './protobuf-text.js';
import { redisKeys, type RedisKeys } from './redis-keys.js';

export interface ProcessContext {
  role: string;
  config: TrawlConfig;
  log: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  keys: RedisKeys;
}

/** What a process hands back once started: how to stop it cleanly. */
export interface RunningProcess {
  stop(signal: string): Promise<void>;
}

/**
 * The bootstrap shared by every process entry point: configuration, logger,
 * NATS with the streams in place, then the role's own start; SIGTERM and
 * SIGINT stop it once (a second signal while stopping is ignored) and close
 * NATS last. A start that throws ends the process with code 1.
 */
export async function runProcess(role: string, start: (ctx: ProcessContext) => Promise<RunningProcess>, opts: { natsName?: string } = {}): Promise<void> {
  useBufferTextEncoding();
  const config = loadConfig();
  const log = createLogger(role, config.logLevel);
  let running: RunningProcess;
  let nc: NatsConnection;
  try {
    nc = await connectNats(config, opts.natsName ?? role);
    const jsm = await jetstreamManager(nc);
    const names = natsNames(config.natsPrefix);
    await ensureStreams(jsm, names);
    running = await start({ role, config, log, nc, js: jetstream(nc), jsm, names, keys: redisKeys(config.natsPrefix) });
  } catch (err) {
    log.fatal({ err }, `${role} could not start`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `${role} stopping`);
    try {
      await running.stop(signal);
    } catch (err) {
      log.error({ err }, `${role} did not stop cleanly`);
    }
    await nc.drain().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
