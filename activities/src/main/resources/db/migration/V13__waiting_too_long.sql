-- Nothing retries forever in silence: when an operation entered its phase, whether an operator has
-- been told it waits too long there, and why its delivery last failed.
--
-- phase_since: when the row entered its current phase, kept by the row rules' trigger (below) for
-- every statement that changes the phase, so no write has to remember it. Rows already in flight at
-- this upgrade keep NULL until their next phase change; readers fall back to updated_at (for a
-- delivering row, when it started delivering; for an observing row, its last status change).
-- too_long_reported_at: set once by the statement that logs the ERROR "waits too long" (observing
-- or delivering beyond the worker's limits), cleared by the trigger when the phase changes, so the
-- line comes once per operation and phase, across retries, workers and restarts.
-- delivery_failure / delivery_failed_at: the last failed delivery attempt's reason (for instance a
-- SHA-256 mismatch), for ops show. Bookkeeping, not state: written without a new revision.
-- No defaults (no table rewrite) and no index: none of these is ever searched by; the fleet
-- figures read them only over the unfinished operations' partial index.
ALTER TABLE app_generation_operations
    ADD COLUMN phase_since          timestamptz,
    ADD COLUMN too_long_reported_at timestamptz,
    ADD COLUMN delivery_failure     text,
    ADD COLUMN delivery_failed_at   timestamptz;

-- V12's rules, plus phase_since and too_long_reported_at on a phase change. Same trigger, same
-- columns it fires for (phase is one of them).
CREATE OR REPLACE FUNCTION app_generation_operations_rules() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    phase_action text;
BEGIN
    IF btrim(NEW.operation_id) = '' THEN
        RAISE EXCEPTION 'operation_id must not be blank'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'operation_id_not_blank';
    END IF;
    IF NEW.next_action NOT IN ('dispatch', 'observe', 'deliver', 'reconcile', 'none') THEN
        RAISE EXCEPTION 'unknown next_action %', NEW.next_action
            USING ERRCODE = 'check_violation', CONSTRAINT = 'next_action_known';
    END IF;
    -- The one place where a phase decides its next action.
    phase_action := CASE NEW.phase
        WHEN 'pending' THEN 'dispatch'
        WHEN 'submitting' THEN 'dispatch'
        WHEN 'observing' THEN 'observe'
        WHEN 'delivering' THEN 'deliver'
        WHEN 'in_review' THEN 'reconcile'
        WHEN 'delivered' THEN 'none'
        WHEN 'failed' THEN 'none'
        WHEN 'abandoned' THEN 'none'
    END;
    IF NEW.phase IS NOT NULL AND NEW.next_action <> coalesce(phase_action, '') THEN
        RAISE EXCEPTION 'phase % does not go with next_action %', NEW.phase, NEW.next_action
            USING ERRCODE = 'check_violation', CONSTRAINT = 'phase_matches_next_action';
    END IF;
    IF NEW.revision < 0 THEN
        RAISE EXCEPTION 'revision % is negative', NEW.revision
            USING ERRCODE = 'check_violation', CONSTRAINT = 'revision_not_negative';
    END IF;
    IF NEW.remote_status NOT IN ('queued', 'running', 'succeeded', 'failed', 'canceled') THEN
        RAISE EXCEPTION 'unknown remote_status %', NEW.remote_status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'remote_status_known';
    END IF;
    IF TG_OP = 'INSERT' THEN
        NEW.phase_since := coalesce(NEW.phase_since, clock_timestamp());
    ELSIF NEW.phase IS DISTINCT FROM OLD.phase THEN
        NEW.phase_since := clock_timestamp();
        NEW.too_long_reported_at := NULL;
    END IF;
    RETURN NEW;
END
$$;
