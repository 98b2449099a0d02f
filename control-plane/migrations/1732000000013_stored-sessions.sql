-- Up Migration

-- Stored sessions (SPEC 7.3, 8.4): a logged-in visit's cookies, sealed with
-- the master key, that scrapes name with advanced.session_id. A deleted
-- session keeps its row (deleted_at) so using it answers SESSION_INACTIVE
-- rather than SESSION_NOT_FOUND.
CREATE TABLE stored_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts(id),
  name text NOT NULL,
  domain text NOT NULL,
  cookies_sealed bytea NOT NULL,
  cookie_names text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  deleted_at timestamptz
);
CREATE INDEX stored_sessions_account_idx ON stored_sessions (account_id, created_at DESC) WHERE deleted_at IS NULL;

-- Down Migration
DROP TABLE stored_sessions;
