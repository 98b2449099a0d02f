import { createHmac, randomBytes } from 'node:crypto';
import { openText, sealText } from '../secret-box.js';

/** A new webhook secret: whsec_ and 32 random bytes in hex. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

/** Secrets are kept sealed the way API keys are: AES-256-GCM under the master key (secret-box.ts). */
export const sealSecret = sealText;
export const openSecret = openText;

/** X-Service-Signature (SPEC 6.4): `sha256=` and the hex HMAC-SHA256 of the exact body under the secret. */
export function serviceSignature(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The crawl webhook object's own signature (SPEC 6.4 rule 7): the hex
 * HMAC-SHA256 under its `secret` of `<timestamp>.<body>`, timestamp being
 * X-Webhook-Timestamp (Unix seconds), so a captured delivery cannot be
 * replayed later with a fresh timestamp. Sent as `sha256=<hex>`.
 */
export function timestampedSignature(secret: string, timestampSeconds: number, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex')}`;
}
