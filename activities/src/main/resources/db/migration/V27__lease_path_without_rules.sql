-- The lease path (claim, renew, release) pays for no row rule (issue 54, item 2).
--
-- Why: V18's `credits bigint CHECK (credits >= 0)` put a CHECK back on the operations table, and
-- PostgreSQL evaluates every CHECK for every row an UPDATE writes, whichever columns it sets: each
-- lease renewal, release and poll reschedule paid it again (V12 measured that class of cost at about
-- 40 % of a renewal). And the row rules' trigger fired for every claim, because a claim sets the
-- revision.
--
-- Now the credits rule is one more rule of the trigger (the same name and SQLSTATE 23514 as the
-- CHECK had), which fires for credits, and the trigger no longer fires for revision. The revision
-- rule stays in the function: it holds on every insert and on every update that sets a column the
-- trigger fires for, which every phase change does. A bare `SET revision = -1` is no longer
-- refused; the ledger only ever writes `revision = revision + 1` (FencedWrite and the claims), from
-- 0 (the column's default, checked on insert), so it cannot go below 0 through the product.
ALTER TABLE app_generation_operations DROP CONSTRAINT app_generation_operations_credits_check;

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
    IF NEW.credits < 0 THEN
        RAISE EXCEPTION 'credits % are negative', NEW.credits
            USING ERRCODE = 'check_violation',
                  CONSTRAINT = 'app_generation_operations_credits_check';
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

-- The same trigger, for the same columns but revision, and for credits.
DROP TRIGGER app_generation_operations_rules ON app_generation_operations;
CREATE TRIGGER app_generation_operations_rules
    BEFORE INSERT OR UPDATE OF operation_id, next_action, phase, remote_status, credits
    ON app_generation_operations
    FOR EACH ROW EXECUTE FUNCTION app_generation_operations_rules();
