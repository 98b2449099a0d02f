-- Up Migration
CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  email text,
  balance_microcents bigint NOT NULL DEFAULT 0 CHECK (balance_microcents >= 0),
  is_enterprise boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts(id),
  name text NOT NULL,
  key_prefix text NOT NULL,
  key_digest bytea NOT NULL UNIQUE,
  key_ciphertext bytea NOT NULL,
  scopes text[] NOT NULL DEFAULT ARRAY['scrape'],
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

-- Append-only money ledger. One row per (reference, kind): a retried debit,
-- settlement or refund hits the unique key and is applied once.
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  kind text NOT NULL CHECK (kind IN ('deposit', 'reserve', 'settle', 'refund', 'adjustment')),
  amount_microcents bigint NOT NULL,
  balance_after_microcents bigint NOT NULL,
  reference text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (reference, kind)
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, created_at);

CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  api_key_id uuid REFERENCES api_keys(id),
  kind text NOT NULL DEFAULT 'scrape',
  status text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'rejected')),
  url text NOT NULL,
  mode text NOT NULL,
  formats text[] NOT NULL,
  sync boolean NOT NULL,
  request jsonb NOT NULL,
  tier_plan text[] NOT NULL,
  current_tier text,
  attempts integer NOT NULL DEFAULT 0,
  reserved_microcents bigint NOT NULL DEFAULT 0,
  charged_microcents bigint NOT NULL DEFAULT 0,
  refunded_microcents bigint NOT NULL DEFAULT 0,
  result_key text,
  status_code integer,
  error_code text,
  error_message text,
  error_http_status integer,
  error_details jsonb,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  deadline_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_account_created_idx ON jobs (account_id, created_at DESC);
CREATE INDEX jobs_active_idx ON jobs (status, deadline_at) WHERE status IN ('pending', 'running');

-- One row per dispatch of a job to a tier. `published` is the outbox flag:
-- a row committed but not yet published is picked up by the sweeper.
CREATE TABLE job_attempts (
  id uuid PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES jobs(id),
  attempt_number integer NOT NULL,
  tier text NOT NULL,
  pool text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  published boolean NOT NULL DEFAULT false,
  result text,
  error_code text,
  error_message text,
  escalate boolean,
  status_code integer,
  credits_microcents bigint NOT NULL DEFAULT 0,
  fetch_ms integer,
  duration_ms integer,
  bytes bigint,
  worker_id text,
  deliveries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  UNIQUE (job_id, attempt_number)
);
CREATE INDEX job_attempts_unpublished_idx ON job_attempts (created_at) WHERE NOT published;

-- Down Migration
DROP TABLE job_attempts;
DROP TABLE jobs;
DROP TABLE ledger_entries;
DROP TABLE api_keys;
DROP TABLE accounts;
