import path from 'node:path';
import { loadConfig } from '../../common/config.js';
import { createPgPool } from '../../common/connections.js';
import { createLogger } from '../../common/logger.js';
import { migrateDatabase } from '../../control-plane/migrate.js';
import { devMasterKey, ensureDevApiKey } from './dev-account.js';
import { listenPortsMessage, stackListenPorts } from './listen-ports.js';
import { ROLES, ROOT, waitForHttp, type Role } from './processes.js';
import { superviseRoles } from './supervisor.js';

const stateDir = path.join(ROOT, '.trawl');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  TRAWL_ENV: process.env.TRAWL_ENV ?? 'development',
  TRAWL_MASTER_KEY: process.env.TRAWL_MASTER_KEY ?? (await devMasterKey(stateDir)),
};
const config = loadConfig(env);
const log = createLogger('stack', config.logLevel);

const cannotListen = await listenPortsMessage(stackListenPorts(config));
if (cannotListen) {
  process.stderr.write(`${cannotListen}\n`);
  process.exit(1);
}

await migrateDatabase(config.databaseUrl, log);
const pool = createPgPool(config, 2);
const apiKey = await ensureDevApiKey(pool, stateDir, config.masterKeyHex);
await pool.end();

const print = (role: Role, line: string) => process.stdout.write(`${role.padEnd(13)} | ${line}\n`);
const supervisor = superviseRoles(Object.keys(ROLES) as Role[], env, print);
let stopping = false;
async function stopAll() {
  if (stopping) return;
  stopping = true;
  await supervisor.stopAll();
  process.exit(0);
}
process.on('SIGINT', () => void stopAll());
process.on('SIGTERM', () => void stopAll());

await waitForHttp(`${config.publicBaseUrl}/api/v1/health/ready`, 60_000);
process.stdout.write(`
Trawl is running.

  Base URL:       ${config.publicBaseUrl}
  API reference:  ${config.publicBaseUrl}/api/v1/docs
  API key:        ${apiKey}

  curl -s ${config.publicBaseUrl}/api/v1/scrape -H 'X-API-Key: ${apiKey}' \\
       -H 'Content-Type: application/json' -d '{"url":"https://example.com","formats":["markdown"]}'

A process that crashes is restarted with backoff. Press Ctrl-C to stop every process.
`);
