import type { Context } from 'koa';
import type { Redis } from 'ioredis';
import { TrawlError } from '../../common/errors.js';
import type { IpLimit } from '../../common/limits.js';
import { RETRY_AFTER } from '../../common/rate-limit-headers.js';
import { rateLimitScript, retryAfterSeconds, type GcraLimit } from '../../common/rate-limit-script.js';
import type { RedisKeys } from '../../common/redis-keys.js';

export interface IpLimiter {
  /** Counts the request against the route's per-address limits; throws RATE_LIMIT_EXCEEDED (with Retry-After) when one is used up. */
  checkAddress(ctx: Context, limits: readonly IpLimit[]): Promise<void>;
  /** Counts it against the per-e-mail limits, with the address from the parsed body (case-insensitive). */
  checkEmail(ctx: Context, limits: readonly IpLimit[], body: unknown): Promise<void>;
}

function windowLabel(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/**
 * The per-address limits of SPEC 8.2, counted in Redis by the same GCRA
 * script as every other limit (a limit of n per window admits n at once,
 * then one more each window / n), so every gateway process shares one count.
 * The address is the one gateway/http/client-ip.ts resolved: X-Forwarded-For
 * counts only from a trusted proxy.
 */
export function createIpLimiter(redis: Redis, keys: RedisKeys): IpLimiter {
  const script = rateLimitScript(redis);
  const check = async (ctx: Context, limits: readonly IpLimit[], subject: string, what: string) => {
    if (limits.length === 0) return;
    const gcra: GcraLimit[] = limits.map((l) => ({ key: keys.ipLimit(l.name, subject), count: l.limit, periodMs: l.windowSeconds * 1000 }));
    let decision;
    try {
      decision = await script.take(gcra, 1);
    } catch {
      throw new TrawlError('SERVICE_UNAVAILABLE', 'The request limits cannot be checked right now; try again shortly');
    }
    if (decision.refused === 0) return;
    const limit = limits[decision.refused - 1]!;
    const retryAfter = retryAfterSeconds(decision.retryAfterMs);
    ctx.set(RETRY_AFTER, String(retryAfter));
    throw new TrawlError(
      'RATE_LIMIT_EXCEEDED',
      `Too many requests from this ${what}: ${limit.limit} per ${windowLabel(limit.windowSeconds)}; retry after ${retryAfter} s`,
      { limit: limit.name, retry_after_seconds: retryAfter },
    );
  };
  return {
    checkAddress(ctx, limits) {
      return check(ctx, limits.filter((l) => (l.per ?? 'ip') === 'ip'), ctx.state.trawl.clientIp, 'address');
    },
    async checkEmail(ctx, limits, body) {
      const byEmail = limits.filter((l) => l.per === 'email');
      const email = (body as { email?: unknown } | undefined)?.email;
      if (byEmail.length === 0 || typeof email !== 'string') return;
      await check(ctx, byEmail, email.trim().toLowerCase(), 'e-mail address');
    },
  };
}
