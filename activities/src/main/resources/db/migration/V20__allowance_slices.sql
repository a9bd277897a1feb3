-- The allowance's counters split into slices, so that reservations stop queueing on one row per
-- scope (docs/ledger.md, "Allowance"). Each scope ('*' for the fleet, 'account:<name>') has 16
-- slices; a reservation locks one slice no other reservation holds (from its operation's home slice
-- on, SKIP LOCKED) and admits it within the budget that slice holds. The slices' budgets add up to the scope's limit, so their sum never exceeds it; a
-- reservation its home slice cannot admit locks all of the scope's slices, decides on their sum and
-- shares out again what is left. app_allowance_counters is no longer read.
CREATE TABLE app_allowance_slices (
    scope            text        NOT NULL,
    slice            smallint    NOT NULL CHECK (slice >= 0),
    -- The same for every slice of a scope: they all start a window together.
    window_start     timestamptz NOT NULL,
    -- Credits reserved through this slice in the current window.
    credits          bigint      NOT NULL DEFAULT 0 CHECK (credits >= 0),
    -- What this slice may reach without asking the others: credits, and dispatches in flight.
    credit_budget    bigint      NOT NULL DEFAULT 0 CHECK (credit_budget >= 0),
    in_flight_budget bigint      NOT NULL DEFAULT 0 CHECK (in_flight_budget >= 0),
    -- The scope's limits the budgets were shared out of; NULL until the first share. A worker
    -- whose limits differ shares out again before admitting anything on a budget.
    credit_limit     bigint,
    in_flight_limit  bigint,
    PRIMARY KEY (scope, slice)
) WITH (fillfactor = 50);

-- The slice a reservation was counted in (NULL: made before this migration, counted in slice 0,
-- where the old counter's credits go below).
ALTER TABLE app_dispatch_reservations ADD COLUMN slice smallint;

-- A worker of an earlier release keeps reserving in app_allowance_counters, where the new workers
-- no longer look: together they could spend twice the allowance. Its writes are refused instead,
-- so that its reservations fail (it sends nothing) until it is replaced; a settle that would give
-- credits back there fails too, and those credits stay counted until the window ends.
CREATE FUNCTION app_allowance_counters_retired() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the allowance is kept in app_allowance_slices since migration V20: this worker''s release predates it and must be upgraded before it can reserve credits'
        USING ERRCODE = 'object_not_in_prerequisite_state';
END;
$$;

-- Created before the copy, in the same transaction: the trigger's lock waits for reservations in
-- progress, and every later one is refused, so the copy below misses none.
CREATE TRIGGER app_allowance_counters_retired
    BEFORE INSERT OR UPDATE ON app_allowance_counters
    FOR EACH ROW EXECUTE FUNCTION app_allowance_counters_retired();

-- Each scope's current use carries over: its window, and its credits in slice 0. No budget yet
-- (credit_limit NULL), so the first reservation decides on the sum and shares out the rest.
INSERT INTO app_allowance_slices (scope, slice, window_start, credits)
SELECT c.scope, g.slice, c.window_start, CASE WHEN g.slice = 0 THEN c.credits ELSE 0 END
FROM app_allowance_counters c CROSS JOIN generate_series(0, 15) AS g(slice);
