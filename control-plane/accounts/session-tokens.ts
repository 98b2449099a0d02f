import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { TrawlError } from '../../common/errors.js';

const ALGORITHM = 'HS256';
const ISSUER = 'trawl';
const AUDIENCE = 'trawl-dashboard';

export interface SessionTokens {
  /** A signed session token for a user, with its expiry. */
  issue(userId: string): Promise<{ token: string; expiresAt: Date }>;
  /** The user a token was issued to; SESSION_EXPIRED or INVALID_SESSION_TOKEN otherwise. */
  verify(token: string): Promise<{ userId: string; expiresAt: Date }>;
}

/** Dashboard session tokens: HS256 JWTs signed with the configured secret. */
export function createSessionTokens(opts: { secret: string; ttlSeconds: number; now?: () => number }): SessionTokens {
  const key = new TextEncoder().encode(opts.secret);
  const now = opts.now ?? Date.now;
  return {
    async issue(userId) {
      const issuedAt = Math.floor(now() / 1000);
      const expiresAt = issuedAt + opts.ttlSeconds;
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(key);
      return { token, expiresAt: new Date(expiresAt * 1000) };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: new Date(now()),
        });
        if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') throw new Error('token without subject or expiry');
        return { userId: payload.sub, expiresAt: new Date(payload.exp * 1000) };
      } catch (err) {
        if (err instanceof errors.JWTExpired) throw new TrawlError('SESSION_EXPIRED', 'The session token has expired; log in again');
        throw new TrawlError('INVALID_SESSION_TOKEN', 'The session token is invalid');
      }
    },
  };
}
