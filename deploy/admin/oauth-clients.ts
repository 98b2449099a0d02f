import type pg from 'pg';
import {
  checkRegistration,
  findClient,
  generateClientId,
  generateClientSecret,
  listClients,
  removeClient,
  upsertClient,
  type OAuthClient,
} from '../../control-plane/oauth/clients.js';
import { CommandError, requiredString, UsageError, type AdminCommand, type OptionValues } from './command.js';

/** A client as `add` registered it, with its secret: the one time the secret is shown. */
export interface AddedClient {
  clientId: string;
  clientSecret: string;
  name: string;
  redirectUris: string[];
}

/**
 * Registers an OAuth client with a new secret (32 random bytes). A client id
 * already registered (even removed) is refused: `remove` and `add` do not
 * hand an old id's codes and keys to a new integration.
 */
export async function add(pool: pg.Pool, args: { name: string; clientId?: string; redirectUris?: readonly string[] }): Promise<AddedClient> {
  const clientId = args.clientId ?? generateClientId();
  const redirectUris = args.redirectUris ?? [];
  try {
    checkRegistration(clientId, redirectUris);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const taken = await pool.query('SELECT 1 FROM oauth_clients WHERE client_id = $1', [clientId]);
  if (taken.rowCount) throw new CommandError(`an OAuth client with id ${clientId} is already registered`);
  const clientSecret = generateClientSecret();
  const client = await upsertClient(pool, { clientId, secret: clientSecret, name: args.name, redirectUris });
  return { clientId: client.clientId, clientSecret, name: client.name, redirectUris: client.redirectUris };
}

/** Registered clients, oldest first; removed ones too with `all`. Secrets are never shown (only their digests are kept). */
export function list(pool: pg.Pool, args: { all?: boolean } = {}): Promise<OAuthClient[]> {
  return listClients(pool, { includeRemoved: args.all ?? false });
}

/** Removes a client: it can no longer authorize or exchange codes; API keys it obtained stay until revoked. */
export async function remove(pool: pg.Pool, args: { clientId: string }): Promise<void> {
  if (await removeClient(pool, args.clientId)) return;
  throw new CommandError((await findClient(pool, args.clientId)) ? `could not remove ${args.clientId}` : `no OAuth client ${args.clientId} is registered`);
}

function strings(values: OptionValues, name: string): string[] {
  const raw = values[name];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return all.filter((v): v is string => typeof v === 'string').map((v) => v.trim());
}

const addCommand: AdminCommand = {
  name: 'oauth-clients add',
  usage: '--name N [--client-id ID] [--redirect URI-or-host]...',
  summary:
    'register an OAuth client and print its id and secret, the secret shown once; --redirect adds an allow-list entry of its own (an exact redirect URI, a host, or *.host)',
  options: { name: { type: 'string' }, 'client-id': { type: 'string' }, redirect: { type: 'string', multiple: true } },
  async run(ctx, values) {
    const clientId = values['client-id'];
    const added = await add(ctx.pool, {
      name: requiredString(values, 'name'),
      ...(typeof clientId === 'string' ? { clientId: clientId.trim() } : {}),
      redirectUris: strings(values, 'redirect'),
    });
    ctx.print(`client_id:     ${added.clientId}`);
    ctx.print(`client_secret: ${added.clientSecret}`);
    ctx.print(`name:          ${added.name}`);
    if (added.redirectUris.length > 0) ctx.print(`redirects:     ${added.redirectUris.join(' ')}`);
    ctx.print('The secret is shown this once; only its digest is kept.');
  },
};

const listCommand: AdminCommand = {
  name: 'oauth-clients list',
  usage: '[--all]',
  summary: 'list OAuth clients: id, name, creation time, own redirect entries (--all: removed ones too, with their removal time)',
  options: { all: { type: 'boolean' } },
  async run(ctx, values) {
    const clients = await list(ctx.pool, { all: values['all'] === true });
    if (clients.length === 0) ctx.print('no OAuth clients are registered');
    for (const c of clients) {
      const removed = c.revokedAt ? ` removed=${c.revokedAt.toISOString()}` : '';
      ctx.print(`${c.clientId}\t${c.name}\tcreated=${c.createdAt.toISOString()}${removed}\tredirects=${c.redirectUris.join(' ') || '-'}`);
    }
  },
};

const removeCommand: AdminCommand = {
  name: 'oauth-clients remove',
  usage: '--client-id ID',
  summary: 'remove an OAuth client: it can no longer authorize or exchange codes; keys it obtained stay',
  options: { 'client-id': { type: 'string' } },
  async run(ctx, values) {
    const clientId = requiredString(values, 'client-id');
    await remove(ctx.pool, { clientId });
    ctx.print(`removed OAuth client ${clientId}`);
  },
};

/** The commands `npm run admin` runs for OAuth clients (deploy/admin/cli.ts). */
export const oauthClientCommands: AdminCommand[] = [addCommand, listCommand, removeCommand];
