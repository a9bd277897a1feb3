-- A cancel request outlives the workflow run that accepted it (issue 40, item 1): the statement that
-- accepts a cancel writes it to the operation's row, and every claim that leads to a POST refuses a
-- row whose cancel was requested, so that a run restarted by the sweeper, a run continued as new or
-- a not_submitted resolution can never send a POST after a cancel.
--
-- cancel_requested_at: when the cancel was accepted (the first one; a later one changes nothing).
-- cancel_requested_by / cancel_reason: who asked and why, as the cancel update carried them.
-- cancel_deliver_rendering: whether a render Genace already accepted is still observed and
-- delivered; NULL for the default (CancelRequest.DELIVER_RENDERING_BY_DEFAULT).
--
-- Nullable, no defaults (no table rewrite, no backfill) and no index: never searched by. Written
-- without a new revision, so a lease held at that moment (a POST in flight) still records its
-- outcome; none of them is a column the row rules' trigger fires for.
ALTER TABLE app_generation_operations
    ADD COLUMN cancel_requested_at      timestamptz,
    ADD COLUMN cancel_requested_by      text,
    ADD COLUMN cancel_reason            text,
    ADD COLUMN cancel_deliver_rendering boolean;
