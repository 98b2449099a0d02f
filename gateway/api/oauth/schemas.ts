import { z } from 'zod';
import {
  OAUTH_CODE_TTL_SECONDS,
  OAUTH_REDIRECT_URI_MAX_CHARS,
  OAUTH_SOURCE_MAX_CHARS,
  OAUTH_STATE_MAX_CHARS,
} from '../../../common/limits.js';
import { ErrorEnvelope } from '../../http/error-envelope.js';

/** Text without control characters. */
const PRINTABLE = /^[^\u0000-\u001f\u007f]+$/;

const ClientId = z.string().min(1).max(128).meta({ description: 'The id the operator registered the client under.' });
const RedirectUri = z
  .string()
  .min(1)
  .max(OAUTH_REDIRECT_URI_MAX_CHARS)
  .meta({ description: 'Where the client receives the code; in the token request it must equal the one authorized, character for character.' });

export const AuthorizeRequest = z
  .object({
    client_id: ClientId,
    redirect_uri: RedirectUri.meta({
      description:
        "Must be on the allow-list: the service's own host and its subdomains; localhost and 127.0.0.1 outside production; hosts and URIs the operator listed for all clients or for this one.",
    }),
    state: z
      .string()
      .min(1)
      .max(OAUTH_STATE_MAX_CHARS)
      .regex(PRINTABLE, 'must not contain control characters')
      .meta({ description: 'Opaque value of the client, echoed unchanged.' }),
    scope: z.enum(['scrape']).default('scrape').meta({ description: 'Only `scrape`: full access to the scrape, crawl, search, map and extract routes.' }),
    source: z
      .string()
      .trim()
      .min(1)
      .max(OAUTH_SOURCE_MAX_CHARS)
      .regex(PRINTABLE, 'must not contain control characters')
      .optional()
      .meta({ description: 'Label of the integration, used in the key name: `n8n Integration` for n8n, otherwise `OAuth (<source>)`; without it, `OAuth (<client name>)`.' }),
    code_challenge: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be the base64url SHA-256 of the code_verifier (43 characters)')
      .optional()
      .meta({ description: 'PKCE (RFC 7636): base64url(SHA-256(code_verifier)), without padding.' }),
    code_challenge_method: z.literal('S256').optional().meta({ description: 'Required with code_challenge; only S256.' }),
  })
  .strict()
  .refine((b) => (b.code_challenge === undefined) === (b.code_challenge_method === undefined), {
    message: 'code_challenge and code_challenge_method (S256) go together',
    path: ['code_challenge_method'],
  })
  .meta({ id: 'OAuthAuthorizeRequest' });

export const AuthorizeResponse = z
  .object({
    code: z.string().meta({ description: `Single-use authorization code; expires ${OAUTH_CODE_TTL_SECONDS / 60} minutes after issue.` }),
    state: z.string().meta({ description: 'The state of the request, unchanged.' }),
  })
  .meta({ id: 'OAuthAuthorization' });

/** Unknown parameters are ignored, as RFC 6749 3.2 asks of a token endpoint. */
export const TokenRequest = z
  .object({
    grant_type: z.string().max(64).meta({ description: 'Only `authorization_code`.' }),
    code: z.string().max(256).optional().meta({ description: 'The code from POST /api/v1/oauth/authorize. Required.' }),
    redirect_uri: RedirectUri.optional().meta({ description: 'Exactly the redirect_uri of the authorization. Required.' }),
    client_id: ClientId.optional().meta({ description: 'With client_secret, unless sent as Authorization: Basic.' }),
    client_secret: z.string().max(512).optional().meta({ description: 'With client_id, unless sent as Authorization: Basic.' }),
    code_verifier: z
      .string()
      .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43 to 128 of A-Z a-z 0-9 - . _ ~')
      .optional()
      .meta({ description: 'PKCE: required when the authorization sent a code_challenge, refused otherwise.' }),
  })
  .meta({ id: 'OAuthTokenRequest' });

export const TokenResponse = z
  .object({
    access_token: z.string().meta({ description: 'An API key (`sk_live_...`) of the authorizing account, for X-API-Key; it does not expire.' }),
    token_type: z.literal('bearer'),
    scope: z.string(),
  })
  .meta({ id: 'OAuthToken' });

export const OAuthError = ErrorEnvelope.extend({
  error: z.string().meta({
    description:
      'invalid_request, invalid_client, invalid_grant or unsupported_grant_type (RFC 6749 5.2); OAUTH_NOT_CONFIGURED; PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE or REQUEST_TIMEOUT for a refused body.',
  }),
  error_description: z.string().optional().meta({ description: 'The same text as message, under the name OAuth clients read; absent only from an unexpected 500.' }),
}).meta({ id: 'OAuthError', description: 'The error envelope with error_description: both an OAuth 2.0 error response and the envelope every failure is answered with.' });
