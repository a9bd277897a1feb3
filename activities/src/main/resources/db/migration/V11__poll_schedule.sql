-- Observation scheduled by the ledger: a row with poll_due_at set is polled by any worker's poll
-- loop once that time has passed, instead of by a Temporal activity attempt per poll. A loop that
-- claims a row moves poll_due_at ahead by its claim time; the value it set is its token, so only
-- that claim may reschedule or finish the row, and a crashed loop's rows are due again when the
-- claim time runs out. The observer columns name the waiting activity that the loop completes.
-- These columns are the schedule's, not the operation's state: they take no lease and no revision.
-- Nullable or with a constant default: adding them changes the catalog only, no row is rewritten.
-- The schedule's index is V11.1's, built concurrently.
ALTER TABLE app_generation_operations
    ADD COLUMN poll_due_at          timestamptz,
    ADD COLUMN poll_count           integer NOT NULL DEFAULT 0,
    ADD COLUMN observer_workflow_id text,
    ADD COLUMN observer_run_id      text,
    ADD COLUMN observer_activity_id text,
    -- The waiting activity's W3C traceparent: polls join the operation's trace.
    ADD COLUMN observer_traceparent text;
