-- Up Migration
-- Events (SPEC 6) are recorded in event_outbox by the statement that makes the
-- change they report; the relay publishes them to JetStream and fans each out
-- to the webhook deliveries it needs. request_webhook is the per-request
-- target the event also goes to ({url, secret?, headers?, metadata?}); body is
-- the delivered JSON, rendered once when the event is published so every
-- attempt and every target receives the same bytes.
ALTER TABLE event_outbox ADD COLUMN request_webhook jsonb;
ALTER TABLE event_outbox ADD COLUMN body text;

-- The relay sleeps on LISTEN and wakes at the commit of any statement that
-- recorded events: one notification per statement, not per row.
CREATE FUNCTION event_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('event_outbox', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER event_outbox_notify AFTER INSERT ON event_outbox FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify();

-- A job's per-request target (webhook_url of scrape, batch, crawl, SERP batch), copied to its events.
ALTER TABLE jobs ADD COLUMN request_webhook jsonb;

-- The account-level secret that signs deliveries to per-request URLs, sealed
-- like API keys (AES-256-GCM under the master key), created on first use.
ALTER TABLE accounts ADD COLUMN webhook_secret_sealed bytea;

-- User webhooks (SPEC 2.13, 4.9). A subscription receives the events of the
-- accounts its user acts on: the personal account and those of the user's
-- organizations.
CREATE TABLE webhook_subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  -- The signing secret (whsec_...), sealed like API keys.
  secret_sealed bytea NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  failure_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_success_at timestamptz,
  disabled_at timestamptz
);
CREATE UNIQUE INDEX webhook_subscriptions_user_url_idx ON webhook_subscriptions (user_id, url);

-- Each subscription with every account whose events it receives.
CREATE VIEW account_webhook_subscriptions AS
  SELECT u.account_id, s.* FROM webhook_subscriptions s JOIN users u ON u.id = s.user_id
  UNION ALL
  SELECT o.account_id, s.* FROM webhook_subscriptions s
    JOIN organization_members m ON m.user_id = s.user_id JOIN organizations o ON o.id = m.organization_id;

-- One delivery per event and target (a subscription, or the event's
-- per-request target when subscription_id is null), attempted up to
-- max_attempts times under the same id.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id uuid NOT NULL REFERENCES event_outbox(id),
  subscription_id uuid REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts(id),
  event_type text NOT NULL,
  url text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed', 'retrying')),
  attempt_count integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  next_attempt_at timestamptz,
  -- Set while an attempt's task is out; an attempt whose lease passes without a report is sent again.
  lease_until timestamptz,
  response_status_code integer,
  response_time_ms integer,
  error_message text,
  -- Every attempt as [{attempt, started_at, finished_at, status_code, response_time_ms, error}], the recorded schedule.
  attempts jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX webhook_deliveries_event_subscription_idx ON webhook_deliveries (event_id, subscription_id) WHERE subscription_id IS NOT NULL;
CREATE UNIQUE INDEX webhook_deliveries_event_request_idx ON webhook_deliveries (event_id) WHERE subscription_id IS NULL;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC);

-- Down Migration
DROP TABLE webhook_deliveries;
DROP VIEW account_webhook_subscriptions;
DROP TABLE webhook_subscriptions;
ALTER TABLE accounts DROP COLUMN webhook_secret_sealed;
ALTER TABLE jobs DROP COLUMN request_webhook;
DROP TRIGGER event_outbox_notify ON event_outbox;
DROP FUNCTION event_outbox_notify();
ALTER TABLE event_outbox DROP COLUMN body;
ALTER TABLE event_outbox DROP COLUMN request_webhook;
