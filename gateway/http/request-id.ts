import { randomBytes } from 'node:crypto';

const ACCEPTED = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Request ids: the caller's X-Request-Id when it is a plain token, else
 * "req_" + a random per-process prefix + a counter. Unique across processes
 * without a random draw per request.
 */
export function requestIds(): (incoming: string | undefined) => string {
  const prefix = `req_${randomBytes(9).toString('base64url')}`;
  let counter = 0;
  return (incoming) => (incoming !== undefined && ACCEPTED.test(incoming) ? incoming : `${prefix}${(++counter).toString(36)}`);
}
