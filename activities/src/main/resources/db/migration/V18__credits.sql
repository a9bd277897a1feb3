-- What each operation spent (issue 41, item 4): the estimated credits of its render, written by the
-- statement that records Genace's acceptance (record_accepted, or a found_remote_job resolution),
-- and when. `./genace ops spend` sums them by the index of V18_1.
--
-- credits: GENACE_MODEL_COSTS' estimate for the operation's model (GENACE_DEFAULT_COST for one not
-- listed), as the accepting worker had it configured; Genace's answer carries no cost to prefer.
-- credits_committed_at: when the acceptance was recorded; NULL while nothing is known to be spent
-- (a POST whose outcome is unknown is reported apart, as possibly spent).
--
-- Nullable, no defaults: no table rewrite, no backfill (operations accepted before this migration
-- report no credits). Neither is a column the row rules' trigger fires for.
ALTER TABLE app_generation_operations
    ADD COLUMN credits              bigint CHECK (credits >= 0),
    ADD COLUMN credits_committed_at timestamptz;
