import type { Context } from 'koa';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../common/limits.js';
import type { HeaderDoc } from './route.js';

/** The Retry-After header every 503 carries, as documented. */
export const RETRY_AFTER_HEADER: Record<string, HeaderDoc> = {
  'Retry-After': { description: 'Seconds to wait before trying again', type: 'integer' },
};

/** Asks the client to come back after the service's retry interval. */
export function setRetryAfter(ctx: Context): void {
  ctx.set('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
}
