-- Up Migration
-- Crawls (POST /api/v1/crawl). The frontier is crawl_pages: one row per
-- normalised URL of a crawl, claimed in batches by the control planes and
-- handed to the crawl pool; a claim whose lease runs out is queued again.
CREATE TABLE crawls (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  api_key_id uuid REFERENCES api_keys(id),
  url text NOT NULL,
  domain text NOT NULL,
  status text NOT NULL CHECK (status IN ('discovering', 'scraping', 'completed', 'partial', 'failed', 'cancelled')),
  -- The request as run, with SPEC field names and defaults applied.
  config jsonb NOT NULL,
  max_pages integer NOT NULL,
  max_depth integer NOT NULL,
  -- Pages that may be taken for scraping in all; claimed counts those taken and not given back.
  page_limit integer NOT NULL,
  claimed integer NOT NULL DEFAULT 0,
  price_microcents integer NOT NULL,
  tier text NOT NULL,
  -- Resume rounds: each reserves under its own ledger reference and refunds under it when it ends.
  round integer NOT NULL DEFAULT 0,
  debited_microcents bigint NOT NULL DEFAULT 0,
  used_microcents bigint NOT NULL DEFAULT 0,
  refunded_microcents bigint NOT NULL DEFAULT 0,
  estimated_pages integer NOT NULL,
  total_discovered integer NOT NULL DEFAULT 0,
  completed integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  cancelled integer NOT NULL DEFAULT 0,
  current_depth integer NOT NULL DEFAULT 0,
  tier_breakdown jsonb NOT NULL DEFAULT '{}',
  -- Pages taken per budget pattern (SPEC 2.10 budget_status.counts).
  budget_counts jsonb NOT NULL DEFAULT '{}',
  -- The last stream event id given out (crawl_events.seq).
  event_seq bigint NOT NULL DEFAULT 0,
  error_code text,
  error_message text,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX crawls_account_created_idx ON crawls (account_id, created_at DESC, id DESC);
CREATE INDEX crawls_active_idx ON crawls (updated_at) WHERE status IN ('discovering', 'scraping');

CREATE TABLE crawl_pages (
  crawl_id uuid NOT NULL REFERENCES crawls(id),
  url text NOT NULL,
  -- Discovery order, the tie-break after score and depth.
  seq bigserial,
  depth integer NOT NULL,
  score real NOT NULL DEFAULT 0,
  source text NOT NULL DEFAULT 'link',
  budget_key text,
  status text NOT NULL CHECK (status IN ('queued', 'claimed', 'completed', 'failed', 'cancelled', 'skipped')),
  batch_id uuid,
  lease_until timestamptz,
  -- Failed fetches given another try (a page failing for a passing reason is queued again once).
  retries integer NOT NULL DEFAULT 0,
  status_code integer,
  tier text,
  cost_microcents integer NOT NULL DEFAULT 0,
  cached boolean NOT NULL DEFAULT false,
  result_key text,
  error_code text,
  error_message text,
  finished_at timestamptz,
  PRIMARY KEY (crawl_id, url)
);
CREATE INDEX crawl_pages_queued_idx ON crawl_pages (crawl_id, score DESC, depth, seq) WHERE status = 'queued';
CREATE INDEX crawl_pages_claimed_idx ON crawl_pages (lease_until) WHERE status = 'claimed';
CREATE INDEX crawl_pages_finished_idx ON crawl_pages (crawl_id, seq) WHERE status IN ('completed', 'failed');

-- The crawl's stream (GET /api/v1/crawl/{id}/stream): ids increase per crawl, so Last-Event-ID resumes exactly.
CREATE TABLE crawl_events (
  crawl_id uuid NOT NULL REFERENCES crawls(id),
  seq bigint NOT NULL,
  event text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (crawl_id, seq)
);

-- Down Migration
DROP TABLE crawl_events;
DROP TABLE crawl_pages;
DROP TABLE crawls;
