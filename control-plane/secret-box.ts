import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets kept in Postgres (API keys for the reveal route, stored-session
 * cookies) are sealed with the master key: AES-256-GCM, a random 12-byte IV,
 * stored as IV, tag and ciphertext in one value. Opening with another key,
 * or a value that was altered, throws.
 */
export function sealText(text: string, masterKeyHex: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(masterKeyHex, 'hex'), iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

export function openText(sealed: Buffer, masterKeyHex: string): string {
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(masterKeyHex, 'hex'), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
}
