import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createAccount, createApiKey, findApiKey } from '../../control-plane/accounts/api-keys.js';

/** The development account starts with $10 of credits (50,000 credits). */
export const DEV_ACCOUNT_MICROCENTS = 10_000_000;

/** A master key for local development, made once and kept under .trawl/. */
export async function devMasterKey(stateDir: string): Promise<string> {
  const file = path.join(stateDir, 'master.key');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{64}$/.test(existing)) return existing;
  } catch {
    // made below
  }
  await mkdir(stateDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Gives an account the enterprise tier's limits (SPEC 8.1), as an operator does with the account flag. */
export async function grantEnterprise(pool: pg.Pool, accountId: string): Promise<void> {
  await pool.query('UPDATE accounts SET is_enterprise = true WHERE id = $1', [accountId]);
}

/** Reuses the development key kept under .trawl/ while it still works, else seeds a new account and key. */
export async function ensureDevApiKey(pool: pg.Pool, stateDir: string, masterKeyHex: string): Promise<string> {
  const file = path.join(stateDir, 'dev-api-key');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (await findApiKey(pool, existing)) return existing;
  } catch {
    // seeded below
  }
  const { accountId } = await createAccount(pool, { name: 'Development', initialMicrocents: DEV_ACCOUNT_MICROCENTS });
  // Enterprise limits (SPEC 8.1), so local load and benchmarks with this key are not refused at the Free tier's 30 requests a minute.
  await grantEnterprise(pool, accountId);
  const created = await createApiKey(pool, { accountId, name: 'Development key', environment: 'live', masterKeyHex });
  await mkdir(stateDir, { recursive: true });
  await writeFile(file, `${created.key}\n`, { mode: 0o600 });
  return created.key;
}
