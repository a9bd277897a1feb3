-- ops list --account: one account's operations newest or oldest first, without walking every
-- other account's. Neither column ever changes, so updates stay heap-only (HOT).
CREATE INDEX app_generation_operations_account_idx
    ON app_generation_operations (account, created_at);
