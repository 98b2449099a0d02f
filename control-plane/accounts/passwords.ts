import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (RFC 7914), which is memory-hard: every guess
 * costs 128·N·r bytes of memory as well as CPU time.
 *
 * Parameters: N = 2^15, r = 8, p = 3: 32 MiB per hash, one of the
 * equivalent settings OWASP's Password Storage Cheat Sheet gives for its
 * minimum (2^17, 8, 1), chosen for the smaller memory so that the four
 * libuv threads hashing at once stay within 128 MiB. A hash takes about
 * 0.4 s of one core here. Salt: 16 random bytes; derived key: 32 bytes.
 *
 * Stored form: `scrypt$<N>$<r>$<p>$<salt base64>$<key base64>`, so a later
 * change of parameters still verifies old hashes (and `needsRehash` tells
 * when to store a new one at the next login).
 */
export const PASSWORD_HASH_PARAMS = { N: 2 ** 15, r: 8, p: 3 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Above the largest N·r accepted from a stored hash, so scrypt never refuses one. */
const MAX_MEMORY = 256 * 1024 * 1024;
/** Stored hashes asking for more than this are refused rather than run (they can only come from a corrupt row). */
const MAX_N_TIMES_R = 2 ** 20;

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function parse(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N * r > MAX_N_TIMES_R || p > 16) return null;
  return { N, r, p, salt: Buffer.from(parts[4]!, 'base64'), key: Buffer.from(parts[5]!, 'base64') };
}

/** The stored form of a new password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PASSWORD_HASH_PARAMS);
  const { N, r, p } = PASSWORD_HASH_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Whether a password matches a stored hash, compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** Whether a stored hash was made with other parameters than today's. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  const { N, r, p } = PASSWORD_HASH_PARAMS;
  return !parsed || parsed.N !== N || parsed.r !== r || parsed.p !== p || parsed.key.length !== KEY_BYTES;
}

/**
 * A hash of no one's password, made once, that logins for unknown e-mails
 * (and users without a password) are checked against, so they take as long
 * as a wrong password and the answer time does not tell which e-mails exist.
 */
export function decoyHash(): () => Promise<string> {
  let decoy: Promise<string> | null = null;
  return () => (decoy ??= hashPassword(randomBytes(24).toString('base64')));
}
