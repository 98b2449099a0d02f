-- Up Migration
-- OAuth 2.0 authorization-code flow (SPEC 5): registered clients exchange a
-- user's authorization for an API key of the user's account.

-- Clients are registered by the operator (admin CLI or TRAWL_OAUTH_CLIENTS).
-- Secrets are high-entropy (at least 32 characters) and kept only as SHA-256
-- digests. redirect_uris holds this client's own allow-list entries: exact
-- redirect URIs or host patterns, beyond the deployment-wide list. A removed
-- client keeps its row (codes and issued keys refer to it) with revoked_at set.
CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  secret_digest bytea NOT NULL,
  name text NOT NULL,
  redirect_uris text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- Authorization codes, by the SHA-256 digest of the code (never the code).
-- A code is consumed by the one UPDATE that sets consumed_at; source is ''
-- when the authorization named none.
CREATE TABLE oauth_codes (
  code_digest bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients(client_id),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts(id),
  redirect_uri text NOT NULL,
  scope text NOT NULL,
  source text NOT NULL,
  -- PKCE (RFC 7636), S256 only: base64url SHA-256 of the verifier.
  code_challenge text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX oauth_codes_expires_idx ON oauth_codes (expires_at);

-- The keys token exchanges issued, by integration (account, client, source):
-- a new exchange for an integration revokes the keys it holds.
CREATE TABLE oauth_issued_keys (
  api_key_id uuid PRIMARY KEY REFERENCES api_keys(id),
  account_id uuid NOT NULL REFERENCES accounts(id),
  client_id text NOT NULL REFERENCES oauth_clients(client_id),
  source text NOT NULL,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_issued_keys_integration_idx ON oauth_issued_keys (account_id, client_id, source);

-- Down Migration
DROP TABLE oauth_issued_keys;
DROP TABLE oauth_codes;
DROP TABLE oauth_clients;
