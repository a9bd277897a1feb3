-- V11's poll schedule index, built concurrently, outside a transaction
-- (V11_1__poll_schedule_index.sql.conf); the DROP removes what a failed build left.
-- Only scheduled rows are in it, so the claim's scan is the due rows alone. poll_due_at changes on
-- every poll, so those updates are not heap-only; every other update still is.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_poll_due_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_poll_due_idx
    ON app_generation_operations (poll_due_at) WHERE poll_due_at IS NOT NULL;
