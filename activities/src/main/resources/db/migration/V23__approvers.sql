-- Signed approvals (0.2.0): a review decision that can spend again (not_submitted) carries an
-- Ed25519 signature by a registered approver once at least one is registered.
--
-- app_approvers: each approver's name and public key (X.509 SubjectPublicKeyInfo, base64), added
-- and removed by `./genace ops approvers` under the operator role; workers only read it.
-- app_approvals_used: each approval a resolution consumed (by the SHA-256 of its signature), so
-- that one signed approval answers one review only.
CREATE TABLE app_approvers (
    name        text        PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
    public_key  text        NOT NULL,
    added_by    text        NOT NULL,
    added_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE app_approvals_used (
    signature_sha256 text        PRIMARY KEY,
    operation_id     text        NOT NULL,
    review_opened_at timestamptz NOT NULL,
    approver         text        NOT NULL,
    used_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);

DO $$
BEGIN
    -- V22's default privileges gave genace_read SELECT and genace_worker every write on both.
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_operate') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON app_approvers TO genace_operate;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_worker') THEN
        -- A worker checks approvals; it never decides who may approve.
        REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON app_approvers FROM genace_worker;
    END IF;
END
$$;
