-- Up Migration
-- Crawl results written out as pages finish (SPEC 2.10 storage and output).
-- A crawl with a target (storage s3/r2: Trawl's bucket; output: the caller's
-- s3 or gcs bucket or webhook_stream URL) keeps delivery_open while it may
-- have pages not yet written. The caller's output credentials are sealed like
-- API keys (AES-256-GCM under the master key) and left out of crawls.config.
ALTER TABLE crawls ADD COLUMN delivery_open boolean NOT NULL DEFAULT false;
ALTER TABLE crawls ADD COLUMN output_secret_sealed bytea;
CREATE INDEX crawls_delivery_open_idx ON crawls (id) WHERE delivery_open;

-- One part per target: the pages it holds are fixed when it is cut, so a
-- part written again after a failure (or a lost acknowledgement) replaces
-- its object with the same lines, and every page finish is written once.
CREATE TABLE crawl_result_parts (
  crawl_id uuid NOT NULL REFERENCES crawls(id),
  target text NOT NULL CHECK (target IN ('storage', 'output')),
  part integer NOT NULL,
  pages integer NOT NULL,
  object_key text,
  bytes bigint NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'written', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  written_at timestamptz,
  -- Trawl's bucket: when the object's retention ends (its lifecycle rule removes it).
  expires_at timestamptz,
  PRIMARY KEY (crawl_id, target, part)
);

-- Each finish of a page, in the part of each target that holds it (a page
-- finished again after a resume is written again, with its new outcome).
CREATE TABLE crawl_result_pages (
  crawl_id uuid NOT NULL,
  target text NOT NULL,
  url text NOT NULL,
  finished_at timestamptz NOT NULL,
  part integer NOT NULL,
  PRIMARY KEY (crawl_id, target, url, finished_at),
  FOREIGN KEY (crawl_id, target, part) REFERENCES crawl_result_parts (crawl_id, target, part)
);
CREATE INDEX crawl_result_pages_part_idx ON crawl_result_pages (crawl_id, target, part);

-- Down Migration
DROP TABLE crawl_result_pages;
DROP TABLE crawl_result_parts;
DROP INDEX crawls_delivery_open_idx;
ALTER TABLE crawls DROP COLUMN output_secret_sealed;
ALTER TABLE crawls DROP COLUMN delivery_open;
