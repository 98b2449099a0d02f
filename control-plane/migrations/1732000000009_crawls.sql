-- Up Migration
-- A crawl and its frontier live here, never in one process's memory: every
-- control-plane replica claims pages from the same rows, and a crawl
-- survives any process being killed.
CREATE TABLE crawls (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  api_key_id uuid REFERENCES api_keys(id),
  url text NOT NULL,
  domain text NOT NULL,
  status text NOT NULL CHECK (status IN ('discovering', 'scraping', 'completed', 'partial', 'failed', 'cancelled')),
  -- The validated start request (snake_case, as sent).
  config jsonb NOT NULL,
  max_pages integer NOT NULL,
  max_depth integer NOT NULL,
  tier_plan text[] NOT NULL,
  -- The price a page is planned at (the starting tier's).
  page_price_microcents bigint NOT NULL,
  -- robots.txt as the discovery step read it (null: none, or not respected).
  robots_txt text,
  crawl_delay_ms integer,
  sitemap_found boolean NOT NULL DEFAULT false,
  -- Money: reserved over every run, used by finished pages, given back.
  reserved_microcents bigint NOT NULL DEFAULT 0,
  used_microcents bigint NOT NULL DEFAULT 0,
  refunded_microcents bigint NOT NULL DEFAULT 0,
  -- A resume starts a new run; each run reserves and refunds once (ledger reference crawl:<id>:<run>).
  run integer NOT NULL DEFAULT 1,
  event_seq bigint NOT NULL DEFAULT 0,
  -- Counters kept with every page change, so progress never counts the frontier.
  completed_pages integer NOT NULL DEFAULT 0,
  failed_pages integer NOT NULL DEFAULT 0,
  discovered_pages integer NOT NULL DEFAULT 0,
  current_depth integer NOT NULL DEFAULT 0,
  tier_breakdown jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Hosts resting after a 429 or 503 answer, host -> epoch ms.
  host_backoff jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX crawls_account_created_idx ON crawls (account_id, created_at DESC);
CREATE INDEX crawls_active_idx ON crawls (status) WHERE status IN ('discovering', 'scraping');

CREATE TABLE crawl_pages (
  id bigserial PRIMARY KEY,
  crawl_id uuid NOT NULL REFERENCES crawls(id),
  -- The normalised URL: each page once per crawl.
  url text NOT NULL,
  host text NOT NULL,
  depth integer NOT NULL,
  score double precision NOT NULL,
  source text NOT NULL CHECK (source IN ('start', 'link', 'sitemap', 'resume')),
  budget_key text,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled', 'skipped')),
  job_id uuid,
  tier text,
  cost_microcents bigint NOT NULL DEFAULT 0,
  status_code integer,
  error_code text,
  error_message text,
  retries integer NOT NULL DEFAULT 0,
  not_before timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  UNIQUE (crawl_id, url)
);
CREATE INDEX crawl_pages_queue_idx ON crawl_pages (crawl_id, score DESC, id) WHERE status = 'queued';
CREATE INDEX crawl_pages_running_idx ON crawl_pages (crawl_id) WHERE status = 'running';
CREATE UNIQUE INDEX crawl_pages_job_idx ON crawl_pages (job_id) WHERE job_id IS NOT NULL;

-- Every event of a crawl, numbered per crawl in the transaction that made
-- the change it tells of: the number is the SSE event id.
CREATE TABLE crawl_events (
  crawl_id uuid NOT NULL REFERENCES crawls(id),
  seq bigint NOT NULL,
  event text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (crawl_id, seq)
);

-- Page jobs of a crawl run on the job machinery with a kind of their own;
-- the kinds already allowed are kept whatever they are.
DO $$
DECLARE def text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint WHERE conname = 'jobs_kind_check' AND conrelid = 'jobs'::regclass;
  ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
  EXECUTE 'ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check ' || replace(def, 'ARRAY[', 'ARRAY[''crawl_page''::text, ');
END $$;

-- Down Migration
DELETE FROM job_attempts WHERE job_id IN (SELECT id FROM jobs WHERE kind = 'crawl_page');
DELETE FROM jobs WHERE kind = 'crawl_page';
DROP TABLE crawl_events;
DROP TABLE crawl_pages;
DROP TABLE crawls;
