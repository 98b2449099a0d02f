-- Up Migration
-- Change tracking of crawls (SPEC 2.10 change_tracking; docs/decisions/0016-change-tracking.md).

-- A crawl run with change tracking: its settings as resolved at the start.
CREATE TABLE crawl_change_tracking (
  crawl_id uuid PRIMARY KEY REFERENCES crawls(id),
  account_id uuid NOT NULL REFERENCES accounts(id),
  tracking_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('content', 'structured')),
  include_diff boolean NOT NULL,
  -- Added to the price of each page the diff is made for (0 without include_diff, and for test keys).
  surcharge_microcents integer NOT NULL,
  -- The latest earlier crawl of the account with this tracking id.
  previous_crawl_id uuid,
  -- When the crawl started: a baseline is replaced only by a crawl started no earlier than the one that wrote it.
  crawl_created_at timestamptz NOT NULL
);
CREATE INDEX crawl_change_tracking_id_idx ON crawl_change_tracking (account_id, tracking_id, crawl_created_at DESC);

-- The latest state of each page per account and tracking id: what the next crawl compares with.
CREATE TABLE change_baselines (
  account_id uuid NOT NULL REFERENCES accounts(id),
  tracking_id text NOT NULL,
  -- The normalised URL (common/url-normalizer.ts), as the crawl frontier keys it.
  url text NOT NULL,
  crawl_id uuid NOT NULL,
  crawl_created_at timestamptz NOT NULL,
  scraped_at timestamptz NOT NULL,
  content_hash text NOT NULL,
  fields_hash text NOT NULL,
  -- The normalised content, kept for diffs; null above the stored-content limit.
  content text,
  fields jsonb NOT NULL,
  PRIMARY KEY (account_id, tracking_id, url)
);

-- What change tracking found for each page of a crawl: new, changed or unchanged when it completed,
-- removed when the crawl ended without finding it.
CREATE TABLE crawl_page_changes (
  crawl_id uuid NOT NULL REFERENCES crawls(id),
  url text NOT NULL,
  seq bigserial,
  status text NOT NULL CHECK (status IN ('new', 'changed', 'unchanged', 'removed')),
  previous_crawl_id uuid,
  previous_scraped_at timestamptz,
  content_hash text,
  previous_hash text,
  -- With include_diff: a unified diff (content mode) or a list of field changes (structured mode).
  diff jsonb,
  PRIMARY KEY (crawl_id, url)
);
CREATE INDEX crawl_page_changes_status_idx ON crawl_page_changes (crawl_id, status, seq);

-- Down Migration
DROP TABLE crawl_page_changes;
DROP TABLE change_baselines;
DROP TABLE crawl_change_tracking;
