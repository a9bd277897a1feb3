-- The application-owned operations ledger. One row per generation operation, written only under a
-- lease fenced by owner + revision (see OperationsLedger), plus an append-only history.

CREATE TABLE app_generation_operations (
    operation_id        text        PRIMARY KEY,
    remote_job_id       text,
    next_action         text        NOT NULL,
    lease_owner         text,
    lease_until         timestamptz,
    revision            bigint      NOT NULL DEFAULT 0,

    phase               text        NOT NULL,
    model               text        NOT NULL,
    request             jsonb       NOT NULL,

    -- Latest remote snapshot; remote_status_rank orders snapshots (queued 0 < running 1 < terminal 2).
    remote_status       text,
    remote_status_rank  smallint,
    remote_snapshot     jsonb,
    remote_observed_at  timestamptz,

    -- Dispatch evidence: submitting_since is committed before any POST leaves.
    dispatch_attempts   integer     NOT NULL DEFAULT 0,
    submitting_since    timestamptz,
    dispatch_outcome    text,
    dispatch_detail     text,

    -- Uncertainty review case.
    review_reason       text,
    review_opened_at    timestamptz,
    review_resolution   text,
    review_resolved_by  text,
    review_resolved_at  timestamptz,
    review_note         text,

    delivery_manifest   jsonb,
    failure_reason      text,
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT operation_id_not_blank CHECK (btrim(operation_id) <> ''),
    CONSTRAINT next_action_known
        CHECK (next_action IN ('dispatch', 'observe', 'deliver', 'reconcile', 'none')),
    -- The one place where a phase decides its next action.
    CONSTRAINT phase_matches_next_action CHECK (
        (phase IN ('pending', 'submitting') AND next_action = 'dispatch')
        OR (phase = 'observing' AND next_action = 'observe')
        OR (phase = 'delivering' AND next_action = 'deliver')
        OR (phase = 'in_review' AND next_action = 'reconcile')
        OR (phase IN ('delivered', 'failed', 'abandoned') AND next_action = 'none')),
    CONSTRAINT revision_not_negative CHECK (revision >= 0),
    CONSTRAINT remote_status_known
        CHECK (remote_status IS NULL OR remote_status IN ('queued', 'running', 'succeeded', 'failed', 'canceled'))
);

CREATE INDEX app_generation_operations_phase_idx ON app_generation_operations (phase, updated_at);

-- Every accepted transition and, with accepted = false, every denied exclusive write (a denial never
-- touches the operation row). Rows are only ever inserted.
CREATE TABLE app_generation_transitions (
    id            bigserial   PRIMARY KEY,
    operation_id  text        NOT NULL REFERENCES app_generation_operations (operation_id) ON DELETE CASCADE,
    revision      bigint      NOT NULL,
    owner         text,
    event         text        NOT NULL,
    from_phase    text,
    to_phase      text,
    accepted      boolean     NOT NULL,
    details       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    at            timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX app_generation_transitions_operation_idx ON app_generation_transitions (operation_id, id);

-- Fleet-wide switches (e.g. dispatch paused), durable across worker restarts.
CREATE TABLE app_worker_controls (
    name        text        PRIMARY KEY,
    enabled     boolean     NOT NULL,
    changed_by  text        NOT NULL,
    reason      text,
    changed_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
