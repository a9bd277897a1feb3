-- ops list --account: one account's operations newest or oldest first, without walking every
-- other account's. Neither column ever changes, so updates stay heap-only (HOT).
-- Built concurrently, outside a transaction (V10__operations_by_account.sql.conf): writes go on
-- during the build. A failed build leaves an INVALID index of this name, which the DROP removes
-- when the script runs again.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_account_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_account_idx
    ON app_generation_operations (account, created_at);
