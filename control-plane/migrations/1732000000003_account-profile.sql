-- Up Migration
-- Where a user signed up from: the client address and the registrable domain
-- of the e-mail (left empty for free-mail providers). Both find "sibling"
-- accounts, which get the reduced welcome bonus.
ALTER TABLE users ADD COLUMN signup_ip inet;
ALTER TABLE users ADD COLUMN signup_email_domain text;
CREATE INDEX users_signup_ip_idx ON users (signup_ip) WHERE signup_ip IS NOT NULL;
CREATE INDEX users_signup_email_domain_idx ON users (signup_email_domain) WHERE signup_email_domain IS NOT NULL;

-- The welcome bonus an account was granted at sign-up, in the amounts then
-- configured, and its one unlock (the rest of the full bonus) for accounts
-- that got the reduced one. The money itself moves only through the ledger.
CREATE TABLE welcome_bonuses (
  account_id uuid PRIMARY KEY REFERENCES accounts(id),
  full_microcents bigint NOT NULL CHECK (full_microcents >= 0),
  granted_microcents bigint NOT NULL CHECK (granted_microcents >= 0 AND granted_microcents <= full_microcents),
  reduced boolean NOT NULL,
  -- The users found sharing the sign-up address or e-mail domain.
  sibling_user_ids uuid[] NOT NULL DEFAULT '{}',
  unlock_idempotency_key text,
  unlocked_microcents bigint,
  unlock_balance_after_microcents bigint,
  unlocked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((unlocked_at IS NULL) = (unlock_idempotency_key IS NULL))
);

-- One-time notices an account has been shown (e.g. 'legacy-keys').
CREATE TABLE account_notices (
  account_id uuid NOT NULL REFERENCES accounts(id),
  notice text NOT NULL,
  shown_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, notice)
);

-- Down Migration
DROP TABLE account_notices;
DROP TABLE welcome_bonuses;
DROP INDEX users_signup_email_domain_idx;
DROP INDEX users_signup_ip_idx;
ALTER TABLE users DROP COLUMN signup_email_domain;
ALTER TABLE users DROP COLUMN signup_ip;
