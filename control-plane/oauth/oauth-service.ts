import type { DescMethod } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { OAuthService } from '../../proto/gen/trawl/v1/oauth_pb.js';
import { sessionCallerOf, type CallAuth } from '../accounts/caller.js';
import { anyClientRegistered, authenticateClient, findClient } from './clients.js';
import { consumeCode, issueCode, pkceVerifies } from './codes.js';
import { integrationKeyName, issueIntegrationKey } from './integration-keys.js';
import type { RedirectPolicy } from './redirect-policy.js';

export interface OAuthServiceDeps {
  pool: pg.Pool;
  masterKeyHex: string;
  redirects: RedirectPolicy;
  /** Drops a revoked key from every control plane's authentication cache. */
  keyRevoked(keyId: string): Promise<void> | void;
}

/** The credential each method takes (methodAuth in control-plane/main.ts). */
export const OAUTH_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = [
  [OAuthService.method.authorize, 'session'],
  [OAuthService.method.exchangeCode, 'none'],
];

const NOT_CONFIGURED = () => new TrawlError('OAUTH_NOT_CONFIGURED', 'OAuth integration is not configured');

/**
 * Why a code_verifier does not answer the code's challenge, or null when it
 * does. A verifier for a code issued without a challenge is refused too, so
 * PKCE cannot be stripped from one step and not the other.
 */
function pkceMismatch(challenge: string | null, verifier: string): string | null {
  if (challenge === null) return verifier === '' ? null : 'The authorization sent no code_challenge; send no code_verifier';
  if (verifier === '') return 'code_verifier is required: the authorization sent a code_challenge';
  return pkceVerifies(verifier, challenge) ? null : 'code_verifier does not match the code_challenge';
}

export function createOAuthService(deps: OAuthServiceDeps): ServiceImpl<typeof OAuthService> {
  const { pool } = deps;
  return {
    async authorize(req, ctx) {
      const caller = sessionCallerOf(ctx);
      const client = await findClient(pool, req.clientId);
      if (!client) {
        if (!(await anyClientRegistered(pool))) throw NOT_CONFIGURED();
        throw new TrawlError('UNKNOWN_OAUTH_CLIENT', 'No OAuth client is registered with this client_id');
      }
      if (!deps.redirects.allows(req.redirectUri, client.redirectUris)) {
        throw new TrawlError('REDIRECT_URI_NOT_ALLOWED', 'redirect_uri is not on the allow-list for this client');
      }
      const issued = await issueCode(pool, {
        clientId: client.clientId,
        userId: caller.userId,
        accountId: caller.accountId,
        redirectUri: req.redirectUri,
        scope: req.scope,
        source: req.source,
        codeChallenge: req.codeChallenge || null,
      });
      return { code: issued.code, expiresAt: issued.expiresAt.toISOString() };
    },

    async exchangeCode(req) {
      const client = await authenticateClient(pool, req.clientId, req.clientSecret);
      if (!client) {
        if (!(await anyClientRegistered(pool))) throw NOT_CONFIGURED();
        throw new TrawlError('invalid_client', 'Client authentication failed: unknown client_id or wrong client_secret');
      }
      const grant = await consumeCode(pool, req.code, client.clientId);
      if (!grant) throw new TrawlError('invalid_grant', 'The authorization code is invalid, expired or already used');
      if (grant.redirectUri !== req.redirectUri) throw new TrawlError('invalid_grant', 'redirect_uri does not match the authorization request');
      const pkceProblem = pkceMismatch(grant.codeChallenge, req.codeVerifier);
      if (pkceProblem) throw new TrawlError('invalid_grant', pkceProblem);
      const issued = await issueIntegrationKey(pool, grant, { name: integrationKeyName(grant.source, client.name), masterKeyHex: deps.masterKeyHex });
      for (const keyId of issued.revokedKeyIds) await deps.keyRevoked(keyId);
      return { accessToken: issued.key, scope: grant.scope, accountId: grant.accountId, apiKeyId: issued.id };
    },
  };
}
