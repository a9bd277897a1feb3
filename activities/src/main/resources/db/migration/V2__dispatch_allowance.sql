-- Spending allowance: each dispatch reserves its estimated credits before the POST leaves, and the
-- reservation is settled with the outcome (spent when a job may exist, released when none does).

ALTER TABLE app_generation_operations ADD COLUMN account text NOT NULL DEFAULT 'default';

CREATE TABLE app_dispatch_reservations (
    id            bigserial   PRIMARY KEY,
    operation_id  text        NOT NULL REFERENCES app_generation_operations (operation_id) ON DELETE CASCADE,
    account       text        NOT NULL,
    credits       bigint      NOT NULL CHECK (credits >= 0),
    state         text        NOT NULL CHECK (state IN ('in_flight', 'spent', 'released')),
    reserved_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    settled_at    timestamptz
);

CREATE INDEX app_dispatch_reservations_window_idx ON app_dispatch_reservations (reserved_at);
CREATE INDEX app_dispatch_reservations_operation_idx ON app_dispatch_reservations (operation_id, state);
