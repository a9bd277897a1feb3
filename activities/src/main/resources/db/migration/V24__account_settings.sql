-- Each account's settings (0.2.0, `./genace ops accounts set`): the most renders it may have in
-- flight at once across the fleet (submitting or observing: a POST sent and the render not ended).
-- An account without a row, or with a NULL cap, has no cap. Written by the operator role; workers
-- read it, and lock an account's row while they count its renders in flight, so that two workers
-- never both take the last place under its cap.
CREATE TABLE app_account_settings (
    account        text        PRIMARY KEY CHECK (length(account) BETWEEN 1 AND 200),
    max_in_flight  integer     CHECK (max_in_flight >= 0),
    updated_by     text        NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);

DO $$
BEGIN
    -- V22's default privileges gave genace_read SELECT and genace_worker every write.
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_operate') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON app_account_settings TO genace_operate;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_worker') THEN
        -- A worker locks a row to count under it (SELECT ... FOR UPDATE needs UPDATE); it never
        -- sets an account's cap.
        REVOKE INSERT, DELETE, TRUNCATE ON app_account_settings FROM genace_worker;
    END IF;
END
$$;
