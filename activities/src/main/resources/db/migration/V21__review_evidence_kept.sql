-- Every gathering of a review's evidence, kept (0.2.0). app_review_evidence keeps the latest one,
-- what `ops show` prints; this table keeps each, so that a job one gathering saw is never lost
-- when the evidence is gathered again (before a `not_submitted` is applied, or after a restore):
-- evidence is appended, never overwritten. Rows are only ever inserted; retention deletes an ended
-- operation's with the rest of it. No foreign key, as app_review_evidence has none: a write costs no
-- lookup. A 0.1.0 worker still writes the latest evidence only, which stays as it was.
CREATE TABLE app_review_evidence_history (
    id           bigserial   PRIMARY KEY,
    operation_id text        NOT NULL,
    evidence     jsonb       NOT NULL CHECK (jsonb_typeof(evidence) = 'object'),
    summary      text        NOT NULL,
    gathered_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- A new, empty table: nothing to lock against, so no CONCURRENTLY.
CREATE INDEX app_review_evidence_history_operation_idx
    ON app_review_evidence_history (operation_id, id);
