-- Leaner ledger writes, an allowance kept in per-scope counters, and fleet figures kept in one row.

-- Writes leave room on their page for the new row version, so that an update that changes no
-- indexed column stays a heap-only (HOT) update: claims, renewals, releases and snapshots.
ALTER TABLE app_generation_operations SET (fillfactor = 80);

-- updated_at changes on every state change: an index on it made every update non-HOT.
DROP INDEX app_generation_operations_phase_idx;
-- ops list (newest first), and the walk for terminal phases. created_at never changes.
CREATE INDEX app_generation_operations_created_idx ON app_generation_operations (created_at);
-- Unfinished operations only: its size is the work in flight, not the history. Serves the fleet
-- figures (operations per unfinished phase, open reviews) and ops list --phase for those phases.
CREATE INDEX app_generation_operations_unfinished_idx
    ON app_generation_operations (phase, created_at) WHERE next_action <> 'none';

-- The history and the reservations are written only by statements that already hold the
-- operation's row (or its id from it): the foreign keys only added a lookup to every insert.
ALTER TABLE app_generation_transitions
    DROP CONSTRAINT app_generation_transitions_operation_id_fkey;
ALTER TABLE app_dispatch_reservations
    DROP CONSTRAINT app_dispatch_reservations_operation_id_fkey;

-- Reservations are counted only while in flight; settled ones leave these indexes.
DROP INDEX app_dispatch_reservations_window_idx;
DROP INDEX app_dispatch_reservations_operation_idx;
CREATE INDEX app_dispatch_reservations_in_flight_idx
    ON app_dispatch_reservations (account, operation_id) WHERE state = 'in_flight';
CREATE INDEX app_dispatch_reservations_in_flight_operation_idx
    ON app_dispatch_reservations (operation_id) WHERE state = 'in_flight';

-- Credits used in the current window, per scope: '*' for the fleet, 'account:<name>' for one
-- account. A scope's window starts with its first reservation after the previous one ended. A
-- reservation locks only the rows of the scopes that have a limit; counting starts at this upgrade.
CREATE TABLE app_allowance_counters (
    scope         text        PRIMARY KEY,
    window_start  timestamptz NOT NULL,
    credits       bigint      NOT NULL CHECK (credits >= 0)
) WITH (fillfactor = 50);

-- The fleet's figures (operations per unfinished phase, open reviews), computed by whichever
-- worker finds them stale first and read by every other worker: one computation per interval for
-- the whole fleet.
CREATE TABLE app_fleet_statistics (
    id            smallint    PRIMARY KEY CHECK (id = 1),
    figures       jsonb       NOT NULL,
    refreshed_at  timestamptz NOT NULL,
    refreshed_by  text        NOT NULL
);
