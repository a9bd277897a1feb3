-- What Genace could tell when an operation's review opened (the jobs carrying its operation id,
-- whether the search is offered), as the review's evidence for operators and for self-settling.
-- A table of its own: written once per review, it leaves the hot operations row (and its HOT
-- updates) alone; no foreign key, so that writing it costs no lookup. The latest review's
-- evidence replaces an earlier one's.
CREATE TABLE app_review_evidence (
    operation_id text PRIMARY KEY,
    evidence     jsonb NOT NULL CHECK (jsonb_typeof(evidence) = 'object'),
    summary      text NOT NULL,
    gathered_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
