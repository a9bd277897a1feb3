-- The operation row's rules (V1's five CHECK constraints) move into one trigger that fires only for
-- the statements that set a column they read.
--
-- Why: PostgreSQL prepares every CHECK expression of a table again for each statement that writes
-- it, whichever columns the statement sets. A lease renewal or release and the poll schedule's
-- writes, by far the most frequent, set none of these columns and spent about 40 % of their time
-- on it (pgbench, 8 clients, the renew UPDATE on this table: 21k statements a second with the
-- checks, 37k without, as many with this trigger in their place; docs/performance.md). A claim
-- sets the revision, so it runs the trigger, which costs less than the five checks did.
-- The rules are the same, with the same names and SQLSTATE 23514 (check_violation). A NULL is
-- left to the columns' NOT NULL (checked after BEFORE triggers), as the constraints left it.
CREATE FUNCTION app_generation_operations_rules() RETURNS trigger
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
    RETURN NEW;
END
$$;

CREATE TRIGGER app_generation_operations_rules
    BEFORE INSERT OR UPDATE OF operation_id, next_action, phase, revision, remote_status
    ON app_generation_operations
    FOR EACH ROW EXECUTE FUNCTION app_generation_operations_rules();

ALTER TABLE app_generation_operations
    DROP CONSTRAINT operation_id_not_blank,
    DROP CONSTRAINT next_action_known,
    DROP CONSTRAINT phase_matches_next_action,
    DROP CONSTRAINT revision_not_negative,
    DROP CONSTRAINT remote_status_known;
