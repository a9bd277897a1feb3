-- Ledger retention (GENACE_LEDGER_RETENTION_DAYS, LedgerRetention): ended operations older than
-- the window are deleted in small batches, with their transitions, evidence and reservations.
--
-- Built CONCURRENTLY, so this migration runs outside a transaction (Flyway sees the statements) and
-- never blocks the ledger's writes while an index is built; each index is dropped first if a failed
-- build left it behind invalid, so that the migration can simply run again.
--
-- Ended operations, oldest end first: the retention pass walks this range from its start and stops
-- at the window. phase_since is when the row entered its phase (V13), so for an ended row when it
-- ended; it changes only with the phase, which the unfinished index already holds, so no update
-- that was heap-only (HOT) stops being so. operation_id never changes and orders rows that ended in
-- the same microsecond. A row enters only when it ends: inserts and unfinished rows never touch it.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_ended_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_ended_idx
    ON app_generation_operations (phase_since, operation_id) WHERE next_action = 'none';

-- An operation's reservations, whatever their state: the retention deletes them with it, and asks
-- whether one is still counted by the allowance. V3 kept only the in-flight ones indexed; this
-- adds one entry per reservation (a reservation is inserted once and settled once).
DROP INDEX CONCURRENTLY IF EXISTS app_dispatch_reservations_operation_idx;
CREATE INDEX CONCURRENTLY app_dispatch_reservations_operation_idx
    ON app_dispatch_reservations (operation_id);
