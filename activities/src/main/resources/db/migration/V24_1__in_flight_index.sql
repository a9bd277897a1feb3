-- V24's cap: an account's renders in flight counted from this index alone, whatever its months of
-- ended operations. Built concurrently, outside a transaction (V24_1__in_flight_index.sql.conf);
-- the DROP removes what a failed build left. Only rows in flight are in it, so it stays small; the
-- phase it filters on is in other indexes already, so no update that was heap-only stops being so.
-- `account <> ''` (always true: V2 gives every row an account) is in the predicate so that only a
-- statement that says it too can use the index: without it, the hot statements that read
-- submitting or observing rows by other conditions would scan this small index on an emptied
-- ledger (EmptyLedgerPlansTest).
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_in_flight_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_in_flight_idx
    ON app_generation_operations (account)
    WHERE phase IN ('submitting', 'observing') AND account <> '';
