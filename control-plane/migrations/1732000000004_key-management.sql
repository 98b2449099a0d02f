-- Up Migration
-- Per-key limits: a request count and a spend budget per period. Periods
-- are UTC calendar days, ISO weeks (from Monday) and months.
CREATE TABLE api_key_limits (
  api_key_id uuid PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  budget_limit_microcents bigint CHECK (budget_limit_microcents >= 0),
  request_limit bigint CHECK (request_limit >= 0),
  reset_period text NOT NULL DEFAULT 'monthly' CHECK (reset_period IN ('daily', 'weekly', 'monthly')),
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Who revealed which stored key, when and from where. The key itself is never written.
CREATE TABLE api_key_decrypt_audit (
  id bigserial PRIMARY KEY,
  api_key_id uuid NOT NULL REFERENCES api_keys(id),
  account_id uuid NOT NULL REFERENCES accounts(id),
  actor_user_id uuid REFERENCES users(id),
  actor_api_key_id uuid REFERENCES api_keys(id),
  client_ip text,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_key_decrypt_audit_key_idx ON api_key_decrypt_audit (api_key_id, created_at);

-- A key's spend in its period is read from its jobs.
CREATE INDEX jobs_api_key_created_idx ON jobs (api_key_id, created_at) WHERE api_key_id IS NOT NULL;

-- The one definition of a limit period: [start, end) around a moment, in UTC.
CREATE FUNCTION api_key_period_start(period text, at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT date_trunc(CASE period WHEN 'daily' THEN 'day' WHEN 'weekly' THEN 'week' ELSE 'month' END, at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
$$;

CREATE FUNCTION api_key_period_end(period text, at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT (date_trunc(CASE period WHEN 'daily' THEN 'day' WHEN 'weekly' THEN 'week' ELSE 'month' END, at AT TIME ZONE 'UTC')
          + CASE period WHEN 'daily' THEN interval '1 day' WHEN 'weekly' THEN interval '1 week' ELSE interval '1 month' END) AT TIME ZONE 'UTC'
$$;

-- A key's spend since a moment: open jobs count at what they reserved, ended ones at what they were charged.
CREATE FUNCTION api_key_spend_since(key_id uuid, since timestamptz) RETURNS bigint
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(sum(CASE WHEN status IN ('pending', 'running') THEN reserved_microcents ELSE charged_microcents END), 0)::bigint
  FROM jobs WHERE api_key_id = key_id AND created_at >= since
$$;

-- Admission against a key's budget. The limits row is locked, so two jobs of
-- one key are admitted one after the other and the second sees the first's
-- reservation: concurrent requests never pass the budget together. A refused
-- job raises SQLSTATE TRK01 (the control plane answers KEY_BUDGET_EXCEEDED);
-- the whole statement, with its reservation, is rolled back.
CREATE FUNCTION api_key_budget_admission() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  lim record;
  spent bigint;
BEGIN
  IF NEW.api_key_id IS NULL OR NEW.status <> 'pending' OR NEW.reserved_microcents <= 0 THEN
    RETURN NEW;
  END IF;
  SELECT budget_limit_microcents, reset_period INTO lim FROM api_key_limits
   WHERE api_key_id = NEW.api_key_id AND enabled AND budget_limit_microcents IS NOT NULL
   FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  spent := api_key_spend_since(NEW.api_key_id, api_key_period_start(lim.reset_period, now()));
  IF spent + NEW.reserved_microcents > lim.budget_limit_microcents THEN
    RAISE EXCEPTION USING
      ERRCODE = 'TRK01',
      MESSAGE = 'api key budget exceeded',
      DETAIL = json_build_object(
        'budget_limit_microcents', lim.budget_limit_microcents,
        'spent_microcents', spent,
        'required_microcents', NEW.reserved_microcents,
        'reset_period', lim.reset_period,
        'period_end', to_char(api_key_period_end(lim.reset_period, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      )::text;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER jobs_api_key_budget BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION api_key_budget_admission();

-- Down Migration
DROP TRIGGER jobs_api_key_budget ON jobs;
DROP FUNCTION api_key_budget_admission();
DROP FUNCTION api_key_spend_since(uuid, timestamptz);
DROP FUNCTION api_key_period_end(text, timestamptz);
DROP FUNCTION api_key_period_start(text, timestamptz);
DROP INDEX jobs_api_key_created_idx;
DROP TABLE api_key_decrypt_audit;
DROP TABLE api_key_limits;
