-- Up Migration
-- Every change to what decides an account's rate-limit tier (its balance, the
-- enterprise flag and an enterprise account's custom limits) is announced on
-- the channel account_limits with the new values, at commit. Control-plane
-- processes keep the tiers of the accounts calling them from these
-- announcements instead of reading the row on every call
-- (control-plane/limits/account-tiers.ts).
CREATE FUNCTION announce_account_limits() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('account_limits', json_build_object(
    'id', NEW.id,
    'balance_microcents', NEW.balance_microcents::text,
    'is_enterprise', NEW.is_enterprise,
    'limit_requests_per_minute', NEW.limit_requests_per_minute,
    'limit_burst_per_second', NEW.limit_burst_per_second,
    'limit_concurrent_requests', NEW.limit_concurrent_requests,
    'limit_dispatch_per_minute', NEW.limit_dispatch_per_minute)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER accounts_limits_announced
  AFTER UPDATE OF balance_microcents, is_enterprise, limit_requests_per_minute, limit_burst_per_second,
                  limit_concurrent_requests, limit_dispatch_per_minute ON accounts
  FOR EACH ROW
  WHEN (OLD.balance_microcents IS DISTINCT FROM NEW.balance_microcents
     OR OLD.is_enterprise IS DISTINCT FROM NEW.is_enterprise
     OR OLD.limit_requests_per_minute IS DISTINCT FROM NEW.limit_requests_per_minute
     OR OLD.limit_burst_per_second IS DISTINCT FROM NEW.limit_burst_per_second
     OR OLD.limit_concurrent_requests IS DISTINCT FROM NEW.limit_concurrent_requests
     OR OLD.limit_dispatch_per_minute IS DISTINCT FROM NEW.limit_dispatch_per_minute)
  EXECUTE FUNCTION announce_account_limits();

-- Down Migration
DROP TRIGGER accounts_limits_announced ON accounts;
DROP FUNCTION announce_account_limits();
