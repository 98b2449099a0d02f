import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../common/config.js';
import { createPgPool } from '../../common/connections.js';
import { devMasterKey } from '../local/dev-account.js';
import { ROOT } from '../local/processes.js';
import { CommandError, UsageError, type AdminCommand, type AdminContext } from './command.js';
import { accountsCreate } from './commands/accounts-create.js';
import { accountsList } from './commands/accounts-list.js';
import { accountsSetEnterprise } from './commands/accounts-set-enterprise.js';
import { accountsSetSubscription } from './commands/accounts-set-subscription.js';
import { deposit } from './commands/deposit.js';
import { keysRevoke } from './commands/keys-revoke.js';

/**
 * The operator CLI: `npm run admin -- <command> [options]` (or
 * `node dist/deploy/admin/cli.js ...` from a build). It works on the database
 * of DATABASE_URL directly, so it needs no running service. Exit status: 0
 * done, 1 the command failed, 2 bad usage. Secrets are never printed, except
 * a created API key, once.
 */

const COMMANDS: AdminCommand[] = [accountsCreate, accountsList, accountsSetEnterprise, accountsSetSubscription, deposit, keysRevoke];
const OAUTH_CLIENTS = 'oauth-clients';

/** The OAuth client commands, from their own module (deploy/admin/oauth-clients.ts); null when this build has none. */
async function oauthClientCommands(): Promise<AdminCommand[] | null> {
  let mod: { oauthClientCommands?: AdminCommand[] | Record<string, AdminCommand> };
  try {
    mod = (await import(new URL('./oauth-clients.js', import.meta.url).href)) as typeof mod;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes('oauth-clients')) return null;
    throw err;
  }
  const commands = mod.oauthClientCommands;
  if (!commands) return null;
  return Array.isArray(commands) ? commands : Object.values(commands);
}

function usageText(commands: readonly AdminCommand[], oauthAvailable: boolean): string {
  const lines = ['usage: npm run admin -- <command> [options]', '', 'commands:'];
  for (const c of commands) lines.push(`  ${c.name} ${c.usage}`.trimEnd(), `      ${c.summary}`);
  if (!oauthAvailable) lines.push(`  ${OAUTH_CLIENTS} add|list|remove`, '      not available: this build has no deploy/admin/oauth-clients module');
  lines.push('', 'Reads DATABASE_URL (and TRAWL_MASTER_KEY for new API keys) like the services do. Exit status: 0 done, 1 failed, 2 bad usage.');
  return lines.join('\n');
}

/** The command named by the leading words of argv (the longest name that matches), and the rest of argv. */
function findCommand(commands: readonly AdminCommand[], argv: readonly string[]): { command: AdminCommand; rest: string[] } | null {
  let best: { command: AdminCommand; rest: string[] } | null = null;
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.command.name.split(' ').length)) {
      best = { command, rest: argv.slice(words.length) };
    }
  }
  return best;
}

async function main(argv: string[]): Promise<number> {
  const wantsHelp = argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!);
  const oauth = wantsHelp || argv[0] === OAUTH_CLIENTS ? await oauthClientCommands() : null;
  const commands = [...COMMANDS, ...(oauth ?? [])];
  if (wantsHelp) {
    const text = usageText(commands, oauth !== null);
    if (argv.length === 0) {
      process.stderr.write(`${text}\n`);
      return 2;
    }
    process.stdout.write(`${text}\n`);
    return 0;
  }
  if (argv[0] === OAUTH_CLIENTS && oauth === null) {
    process.stderr.write(`error: ${OAUTH_CLIENTS} commands are not available: this build has no deploy/admin/oauth-clients module\n`);
    return 1;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    process.stderr.write(`error: unknown command "${argv.join(' ')}"\n\n${usageText(commands, oauth !== null)}\n`);
    return 2;
  }
  const { command, rest } = found;
  const config = loadConfig(process.env);
  const pool = createPgPool(config, 2);
  const ctx: AdminContext = {
    pool,
    config,
    // The same key the local stack uses when TRAWL_MASTER_KEY is not set (deploy/local/stack.ts).
    masterKey: async () => process.env['TRAWL_MASTER_KEY'] || (await devMasterKey(path.join(ROOT, '.trawl'))),
    print: (line) => process.stdout.write(`${line}\n`),
  };
  try {
    let values;
    try {
      values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values;
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    await command.run(ctx, values);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\nusage: npm run admin -- ${command.name} ${command.usage}\n`);
      return 2;
    }
    process.stderr.write(`error: ${err instanceof CommandError ? err.message : (err as Error).message}\n`);
    return 1;
  } finally {
    await pool.end();
  }
}

process.exitCode = await main(process.argv.slice(2));
