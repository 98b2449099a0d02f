import path from 'node:path';
import { loadConfig } from '../../common/config.js';
import { createPgPool } from '../../common/connections.js';
import { createLogger } from '../../common/logger.js';
import { migrateDatabase } from '../../control-plane/migrate.js';
import { devMasterKey, ensureDevApiKey } from './dev-account.js';
import { ROLES, ROOT, startRole, stopProcess, waitForHttp, type ManagedProcess, type Role } from './processes.js';

const stateDir = path.join(ROOT, '.trawl');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  TRAWL_ENV: process.env.TRAWL_ENV ?? 'development',
  TRAWL_MASTER_KEY: process.env.TRAWL_MASTER_KEY ?? (await devMasterKey(stateDir)),
};
const config = loadConfig(env);
const log = createLogger('stack', config.logLevel);

await migrateDatabase(config.databaseUrl, log);
const pool = createPgPool(config, 2);
const apiKey = await ensureDevApiKey(pool, stateDir, config.masterKeyHex);
await pool.end();

const processes: ManagedProcess[] = [];
const print = (role: Role, line: string) => process.stdout.write(`${role.padEnd(13)} | ${line}\n`);
let stopping = false;

async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  await Promise.all(processes.map((p) => stopProcess(p)));
  process.exit(code);
}

for (const role of Object.keys(ROLES) as Role[]) {
  const p = startRole(role, env, print);
  processes.push(p);
  void p.exited.then((code) => {
    if (!stopping) {
      print(role, `exited with code ${code}; stopping the stack`);
      void stopAll(1);
    }
  });
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

await waitForHttp(`${config.publicBaseUrl}/api/v1/health/ready`, 60_000);
process.stdout.write(`
Trawl is running.

  Base URL:       ${config.publicBaseUrl}
  API reference:  ${config.publicBaseUrl}/api/v1/docs
  API key:        ${apiKey}

  curl -s ${config.publicBaseUrl}/api/v1/scrape -H 'X-API-Key: ${apiKey}' \\
       -H 'Content-Type: application/json' -d '{"url":"https://example.com","formats":["markdown"]}'

Press Ctrl-C to stop every process.
`);
