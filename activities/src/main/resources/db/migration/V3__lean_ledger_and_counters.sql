-- Leaner ledger writes, an allowance kept in per-scope counters, and fleet figures kept in one row.
-- The indexes that go with it are V3.1's: an index is built concurrently, outside a transaction.

-- Writes leave room on their page for the new row version, so that an update that changes no
-- indexed column stays a heap-only (HOT) update: claims, renewals, releases and snapshots.
ALTER TABLE app_generation_operations SET (fillfactor = 80);

-- The history and the reservations are written only by statements that already hold the
-- operation's row (or its id from it): the foreign keys only added a lookup to every insert.
ALTER TABLE app_generation_transitions
    DROP CONSTRAINT app_generation_transitions_operation_id_fkey;
ALTER TABLE app_dispatch_reservations
    DROP CONSTRAINT app_dispatch_reservations_operation_id_fkey;

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
