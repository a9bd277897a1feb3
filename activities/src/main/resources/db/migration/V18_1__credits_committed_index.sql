-- V18's spend index, built concurrently, outside a transaction
-- (V18_1__credits_committed_index.sql.conf); the DROP removes what a failed build left.
-- Only operations with committed credits are in it, ordered by when: `ops spend --since AGE` reads
-- the window's entries alone, whatever the months kept behind it, and the columns it sums and
-- groups by are included, so it need not visit the table. credits_committed_at is written once, by
-- the statement that records the acceptance (which changes poll_due_at, indexed already, so it was
-- never a heap-only update); no later update touches a column of this index.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_credits_committed_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_credits_committed_idx
    ON app_generation_operations (credits_committed_at) INCLUDE (account, model, credits)
    WHERE credits_committed_at IS NOT NULL;
