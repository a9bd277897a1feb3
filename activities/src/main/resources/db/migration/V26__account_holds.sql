-- An account whose traffic Genace rate limits (0.2.0): a 429 on one of its POSTs holds the account's
-- next dispatches, on every worker, until the 429's Retry-After has passed, so that one account's
-- limit slows that account only and its backlog does not keep knocking. Workers write and read it
-- (V22's default privileges: genace_read reads it, genace_worker writes it); a hold past its
-- held_until is ignored and replaced by the next one. One row per account at most. The operation
-- whose POST was answered 429 is not held by it: it waits its own Retry-After in its workflow.
CREATE TABLE app_account_holds (
    account     text        PRIMARY KEY CHECK (length(account) BETWEEN 1 AND 200),
    reason      text        NOT NULL,
    operation_id text       NOT NULL,
    held_by     text        NOT NULL,
    held_since  timestamptz NOT NULL DEFAULT clock_timestamp(),
    held_until  timestamptz NOT NULL
);
