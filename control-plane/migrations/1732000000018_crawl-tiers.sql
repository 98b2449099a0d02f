-- Up Migration
-- A crawl's tier plan (docs/decisions/0020-crawl-tiers.md): the tiers each of
-- its pages may be fetched at, in escalation order. price_microcents is what
-- a page reserves (the dearest of them; 0 for test keys); a completed page is
-- charged at the tier that fetched it.
ALTER TABLE crawls ADD COLUMN tier_plan text[] NOT NULL DEFAULT '{1}';

-- Down Migration
ALTER TABLE crawls DROP COLUMN tier_plan;
