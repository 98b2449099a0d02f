-- Up Migration
-- The price of an attempt is fixed when it is queued: a tier's price for a
-- scrape, the size-based price for an extraction.
ALTER TABLE job_attempts ADD COLUMN price_microcents bigint NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('scrape', 'extract'));
-- Redis key of caller-supplied content (extract jobs).
ALTER TABLE jobs ADD COLUMN input_key text;

-- Down Migration
ALTER TABLE jobs DROP COLUMN input_key;
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE job_attempts DROP COLUMN price_microcents;
