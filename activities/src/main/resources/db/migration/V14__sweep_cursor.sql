-- Where the orphan sweeper's walk over the unfinished operations stands. A pass reads pages of
-- unfinished operations in (phase, created_at) order after this position, checks each one's
-- workflow, and moves the position on after each page; a pass that stops at its bound leaves it
-- where the next pass (whichever worker runs it) resumes. An empty phase is the start.
--
-- Why a row in the ledger rather than the schedule's workflow input or memo: a Temporal Schedule
-- starts every run with the same arguments, so carrying the position there means rewriting the
-- schedule after each pass (every worker also rewrites it at start). This one row survives worker
-- restarts and a recreated schedule, is written in the statement that moves it, and its generation
-- lets a pass notice that an overlapping one (a retried attempt, a manual run) has moved it.
-- One row, read and written by its primary key: no other index.
CREATE TABLE app_sweep_cursor (
    id              smallint    PRIMARY KEY CHECK (id = 1),
    phase           text        NOT NULL,
    created_at      timestamptz NOT NULL,
    -- Moves by one with every write: a pass writes only over the generation it read.
    generation      bigint      NOT NULL CHECK (generation >= 0),
    walks_completed bigint      NOT NULL CHECK (walks_completed >= 0),
    moved_at        timestamptz NOT NULL,
    moved_by        text        NOT NULL
);
