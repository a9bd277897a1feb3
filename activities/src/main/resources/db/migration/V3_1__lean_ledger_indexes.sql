-- V3's indexes, built without blocking writes: each is created concurrently (outside a
-- transaction, V3_1__lean_ledger_indexes.sql.conf) before the one it replaces is dropped
-- concurrently. A build that fails leaves an INVALID index of its name; each CREATE is preceded
-- by the DROP of that name, so running this script again finishes the job.

-- ops list (newest first), and the walk for terminal phases. created_at never changes.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_created_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_created_idx
    ON app_generation_operations (created_at);

-- Unfinished operations only: its size is the work in flight, not the history. Serves the fleet
-- figures (operations per unfinished phase, open reviews) and ops list --phase for those phases.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_unfinished_idx;
CREATE INDEX CONCURRENTLY app_generation_operations_unfinished_idx
    ON app_generation_operations (phase, created_at) WHERE next_action <> 'none';

-- updated_at changes on every state change: an index on it made every update non-HOT.
DROP INDEX CONCURRENTLY IF EXISTS app_generation_operations_phase_idx;

-- Reservations are counted only while in flight; settled ones leave these indexes.
DROP INDEX CONCURRENTLY IF EXISTS app_dispatch_reservations_in_flight_idx;
CREATE INDEX CONCURRENTLY app_dispatch_reservations_in_flight_idx
    ON app_dispatch_reservations (account, operation_id) WHERE state = 'in_flight';
DROP INDEX CONCURRENTLY IF EXISTS app_dispatch_reservations_in_flight_operation_idx;
CREATE INDEX CONCURRENTLY app_dispatch_reservations_in_flight_operation_idx
    ON app_dispatch_reservations (operation_id) WHERE state = 'in_flight';
DROP INDEX CONCURRENTLY IF EXISTS app_dispatch_reservations_window_idx;
DROP INDEX CONCURRENTLY IF EXISTS app_dispatch_reservations_operation_idx;
