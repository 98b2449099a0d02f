-- Up Migration
-- The custom limits of an enterprise account (SPEC 8.1: "custom (account flag)"),
-- set by an operator. Read only while is_enterprise is true; a null column keeps
-- the enterprise tier's default (common/balance-tiers.ts ENTERPRISE_TIER).
ALTER TABLE accounts
  ADD COLUMN limit_requests_per_minute integer CHECK (limit_requests_per_minute > 0),
  ADD COLUMN limit_burst_per_second integer CHECK (limit_burst_per_second > 0),
  ADD COLUMN limit_concurrent_requests integer CHECK (limit_concurrent_requests > 0),
  ADD COLUMN limit_dispatch_per_minute integer CHECK (limit_dispatch_per_minute > 0);

-- Down Migration
ALTER TABLE accounts
  DROP COLUMN limit_requests_per_minute,
  DROP COLUMN limit_burst_per_second,
  DROP COLUMN limit_concurrent_requests,
  DROP COLUMN limit_dispatch_per_minute;
