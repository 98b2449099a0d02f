import type { Context } from 'koa';
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
  if (headers['x-api-key']) return;
  if (auth === 'api_key') throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header');
  if (BEARER.test(headers.authorization ?? '')) return;
  throw new TrawlError('MISSING_API_KEY', 'Send your API key in the X-API-Key header or a session token as Authorization: Bearer <token>');
}
