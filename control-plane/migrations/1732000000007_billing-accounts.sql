-- Up Migration
-- The subscription state the payment provider last reported for an account
-- ('none' until it reports one). No subscription is needed to scrape; past_due
-- and cancelled refuse dispatching requests with SUBSCRIPTION_INACTIVE until
-- the provider reports it active again or an operator clears it.
-- subscription_updated_at is the provider's time of the status applied, so an
-- older event arriving late does not undo a newer one.
ALTER TABLE accounts ADD COLUMN subscription_status text NOT NULL DEFAULT 'none'
  CHECK (subscription_status IN ('none', 'active', 'past_due', 'cancelled'));
ALTER TABLE accounts ADD COLUMN subscription_updated_at timestamptz;
-- The payment provider's customer of the account, learnt from a completed checkout.
ALTER TABLE accounts ADD COLUMN payment_customer_id text;
CREATE UNIQUE INDEX accounts_payment_customer_idx ON accounts (payment_customer_id) WHERE payment_customer_id IS NOT NULL;

-- Account events waiting to be published (credits.low, credits.exhausted, ...),
-- written in the transaction that caused them; a publisher sets published_at.
CREATE TABLE event_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts(id),
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX event_outbox_unpublished_idx ON event_outbox (created_at) WHERE published_at IS NULL;
CREATE INDEX event_outbox_account_idx ON event_outbox (account_id, created_at);

-- Settings every ledger statement reads, one row; the control plane writes
-- it from its configuration when it starts.
CREATE TABLE billing_settings (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  credits_low_threshold_microcents bigint NOT NULL CHECK (credits_low_threshold_microcents >= 0)
);
INSERT INTO billing_settings (credits_low_threshold_microcents) VALUES (20000);

-- Checkout sessions opened with the payment provider; a completed one is
-- deposited once (ledger reference checkout:<id>).
CREATE TABLE checkout_sessions (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  user_id uuid REFERENCES users(id),
  amount_microcents bigint NOT NULL CHECK (amount_microcents > 0),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX checkout_sessions_account_idx ON checkout_sessions (account_id, created_at);

-- Payment-provider events already handled, by the provider's event id: a
-- replayed delivery changes nothing.
CREATE TABLE payment_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  account_id uuid REFERENCES accounts(id),
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE payment_events;
DROP TABLE checkout_sessions;
DROP TABLE billing_settings;
DROP TABLE event_outbox;
DROP INDEX accounts_payment_customer_idx;
ALTER TABLE accounts DROP COLUMN payment_customer_id;
ALTER TABLE accounts DROP COLUMN subscription_updated_at;
ALTER TABLE accounts DROP COLUMN subscription_status;
