-- Up Migration
-- Map jobs (POST /api/v1/map) run in the map pool; each map that succeeds is
-- kept in the account's history with its configuration and what it found.
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('scrape', 'extract', 'map'));

CREATE TABLE maps (
  id uuid PRIMARY KEY REFERENCES jobs(id),
  account_id uuid NOT NULL REFERENCES accounts(id),
  url text NOT NULL,
  domain text NOT NULL,
  -- The request as run, with SPEC field names.
  config jsonb NOT NULL,
  -- MapResult (proto/trawl/v1/map.proto) in its JSON form.
  result jsonb NOT NULL,
  total_urls integer NOT NULL,
  sitemap_found boolean NOT NULL,
  credits_used bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX maps_account_created_idx ON maps (account_id, created_at DESC, id DESC);
CREATE INDEX maps_account_domain_idx ON maps (account_id, domain, created_at DESC);

-- Down Migration
DROP TABLE maps;
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
-- Map jobs already recorded stay; only new ones are refused.
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('scrape', 'extract')) NOT VALID;
