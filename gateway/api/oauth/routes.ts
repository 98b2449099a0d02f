import type { Context } from 'koa';
import { TrawlError } from '../../../common/errors.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { addErrorFields } from '../../http/request-context.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { clientCredentials } from './client-auth.js';
import { AuthorizeRequest, AuthorizeResponse, OAuthError, TokenRequest, TokenResponse } from './schemas.js';

const TIMEOUT_MS = 10_000;

/** Codes and keys are credentials: no cache keeps an answer that carries one (RFC 6749 5.1). */
function noStore(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}

/**
 * The token endpoint's failures as RFC 6749 5.2 error responses that are
 * also the error envelope: a refused field is `invalid_request`, every
 * answer carries `error_description`, and a failed client authentication
 * names the Basic scheme in WWW-Authenticate.
 */
function tokenError(err: TrawlError, ctx: Context): TrawlError {
  noStore(ctx);
  const out = err.code === 'VALIDATION_ERROR' ? new TrawlError('invalid_request', err.message, err.details) : err;
  if (out.code === 'invalid_client') ctx.set('WWW-Authenticate', 'Basic realm="trawl-oauth", charset="UTF-8"');
  addErrorFields(ctx, { error_description: out.message });
  return out;
}

/** The OAuth 2.0 authorization-code flow that gives an integration an API key of the user's account (SPEC 5). */
export function oauthRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const oauth = deps.controlPlane.oauth;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/oauth/authorize',
      operationId: 'oauthAuthorize',
      summary: 'Authorize a registered client: a single-use code for it',
      description:
        'The logged-in user (or, with X-Organization-Id, the organization they act for) authorizes the client; the code is bound to the client, redirect_uri, scope, source and PKCE challenge and expires after 5 minutes.',
      tags: ['OAuth'],
      auth: 'session',
      request: { body: AuthorizeRequest },
      responses: { 200: { description: 'The code and the state, unchanged', schema: AuthorizeResponse } },
      errors: {
        400: 'UNKNOWN_OAUTH_CLIENT (no client with this client_id); REDIRECT_URI_NOT_ALLOWED (not on the allow-list)',
        404: 'NOT_FOUND (X-Organization-Id names an organization the user is not a member of)',
        503: 'OAUTH_NOT_CONFIGURED (no OAuth client is registered)',
      },
      handler: async ({ ctx, body }) => {
        noStore(ctx);
        const res = await oauth.authorize(
          {
            clientId: body.client_id,
            redirectUri: body.redirect_uri,
            scope: body.scope,
            source: body.source ?? '',
            codeChallenge: body.code_challenge ?? '',
          },
          callOptions(ctx, TIMEOUT_MS),
        );
        ctx.body = { code: res.code, state: body.state };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/oauth/token',
      operationId: 'oauthToken',
      summary: 'Exchange an authorization code for an API key',
      description:
        'The client authenticates itself with client_secret_post (client_id and client_secret in the body) or client_secret_basic (Authorization: Basic). The code is consumed by the first attempt, whatever its outcome. A new exchange for the same integration (account, client and source) revokes the key the previous one issued. Errors answer in OAuth 2.0 form (error, error_description) within the usual envelope.',
      tags: ['OAuth'],
      auth: 'none',
      bodyTypes: ['form', 'json'],
      request: { body: TokenRequest },
      responses: {
        200: {
          description: 'The API key',
          schema: TokenResponse,
          headers: { 'Cache-Control': { description: 'Always "no-store"', type: 'string' } },
        },
      },
      errors: {
        400: 'invalid_request (a missing or malformed parameter: what other routes answer as VALIDATION_ERROR); invalid_grant (the code is unknown, expired, used or another client\'s, or redirect_uri or code_verifier does not match); unsupported_grant_type',
        401: 'invalid_client (unknown client_id or wrong client_secret), with WWW-Authenticate: Basic',
        503: 'OAUTH_NOT_CONFIGURED (no OAuth client is registered)',
      },
      errorSchema: OAuthError,
      errorAs: tokenError,
      handler: async ({ ctx, body }) => {
        noStore(ctx);
        const client = clientCredentials(ctx.get('authorization'), body);
        if (body.grant_type !== 'authorization_code') throw new TrawlError('unsupported_grant_type', 'Only grant_type=authorization_code is supported');
        if (!body.code) throw new TrawlError('invalid_request', 'code is required');
        if (!body.redirect_uri) throw new TrawlError('invalid_request', 'redirect_uri is required');
        const options = callOptions(ctx, TIMEOUT_MS);
        // The client's Basic credentials travel in the message, not as a header.
        const headers = new Headers(options.headers);
        headers.delete('authorization');
        const res = await oauth.exchangeCode(
          {
            clientId: client.clientId,
            clientSecret: client.clientSecret,
            code: body.code,
            redirectUri: body.redirect_uri,
            codeVerifier: body.code_verifier ?? '',
          },
          { ...options, headers },
        );
        ctx.state.trawl.accountId = res.accountId;
        ctx.body = { access_token: res.accessToken, token_type: 'bearer', scope: res.scope };
      },
    }),
  ];
}
