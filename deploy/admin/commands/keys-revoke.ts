import { CommandError, UsageError, type AdminCommand } from '../command.js';
import { isUuid } from '../../../common/ids.js';

/** Revokes one API key by id, or by its prefix when that names exactly one key. */
export const keysRevoke: AdminCommand = {
  name: 'keys revoke',
  usage: '--key-id ID | --prefix P',
  summary: 'revoke an API key by its id or by its prefix (sk_live_xxxx, the first 12 characters); the running control plane refuses it within 30 s',
  options: { 'key-id': { type: 'string' }, prefix: { type: 'string' } },
  async run(ctx, values) {
    const id = values['key-id'];
    const prefix = values['prefix'];
    if ((id === undefined) === (prefix === undefined)) throw new UsageError('give exactly one of --key-id and --prefix');
    if (typeof id === 'string' && !isUuid(id)) throw new UsageError('--key-id must be a key id (a UUID)');
    if (typeof prefix === 'string' && !/^sk_(live|test)_[A-Za-z0-9]{1,32}$/.test(prefix)) throw new UsageError('--prefix must look like sk_live_xxxx');
    const found = (
      await ctx.pool.query<{ id: string; key_prefix: string; account_id: string; revoked_at: Date | null }>(
        typeof id === 'string'
          ? 'SELECT id, key_prefix, account_id, revoked_at FROM api_keys WHERE id = $1'
          : 'SELECT id, key_prefix, account_id, revoked_at FROM api_keys WHERE key_prefix = $1',
        [id ?? prefix],
      )
    ).rows;
    if (found.length === 0) throw new CommandError('no API key matches');
    if (found.length > 1) throw new CommandError(`${found.length} keys have the prefix ${prefix}; revoke by --key-id: ${found.map((k) => k.id).join(', ')}`);
    const key = found[0]!;
    if (key.revoked_at) {
      ctx.print(`key ${key.id} (${key.key_prefix}) was already revoked at ${key.revoked_at.toISOString()}`);
      return;
    }
    await ctx.pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [key.id]);
    ctx.print(`revoked key ${key.id} (${key.key_prefix}) of account ${key.account_id}`);
  },
};
