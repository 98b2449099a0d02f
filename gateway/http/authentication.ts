import type { Context } from 'koa';
import { INVALID_API_KEY_MESSAGE, isWellFormedApiKey } from '../../common/api-key-format.js';
import { TrawlError } from '../../common/errors.js';
import type { AuthKind } from './route.js';

const BEARER = /^Bearer\s+\S/i;

/**
 * Refuses a request that carries no credential of the kind its route takes,
 * before its body is read or anything inward is called.
 */
export function requireCredential(ctx: Context, auth: AuthKind): void {
  if (auth === 'none') return;
  const headers = ctx.req.headers;
  if (auth === 'session') {
    if (BEARER.test(headers.authorization ?? '')) return;
    throw new TrawlError('INVALID_SESSION_TOKEN', 'This route takes a session token as Authorization: Bearer <token> (from POST /api/v1/auth/login)');
  }
  const key = headers['x-api-key'];
  if (key) {
    // A key that cannot be one is refused here, before the body is read (the control plane judges the rest).
    if (typeof key !== 'string' || !isWellFormedApiKey(key)) throw new TrawlError('INVALID_API_KEY', INVALID_API_KEY_MESSAGE);
    return;
  }
  if (auth === 'api_key') throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
  if (BEARER.test(headers.authorization ?? '')) return;
  throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header or a session token as Authorization: Bearer <token>');
}
