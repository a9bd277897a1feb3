-- Ledger retention at volume: deleting an old day's history rows (what LedgerRetention does)
-- against dropping a day's partition of a history partitioned by time, and what partitioning costs
-- every other statement (the history's inserts, and its reads by operation, which `ops show` and
-- the review's evidence make). docs/performance.md ("Ledger retention at volume") has the figures.
--
-- Run on a scratch PostgreSQL (it creates and drops its own tables, named exp_*):
--   psql -X -v ops_per_day=33334 -f scripts/partitioning-experiment.sql postgresql://...
-- 30 days of ops_per_day operations, 7 history rows each (33,334 a day: a million operations).
\set ON_ERROR_STOP on
\timing on
SET statement_timeout = 0;
SET exp.ops_per_day = :'ops_per_day';
DROP TABLE IF EXISTS exp_plain, exp_parted CASCADE;

-- The history as it is (V1): a bigserial key and the (operation_id, id) index.
CREATE TABLE exp_plain (
    id bigserial PRIMARY KEY, operation_id text NOT NULL, revision bigint NOT NULL,
    owner text, event text NOT NULL, from_phase text, to_phase text, accepted boolean NOT NULL,
    details jsonb NOT NULL DEFAULT '{}'::jsonb, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE INDEX exp_plain_operation_idx ON exp_plain (operation_id, id);

-- The same, partitioned by day on `at`: the key must hold the partition column.
CREATE TABLE exp_parted (
    id bigserial, operation_id text NOT NULL, revision bigint NOT NULL,
    owner text, event text NOT NULL, from_phase text, to_phase text, accepted boolean NOT NULL,
    details jsonb NOT NULL DEFAULT '{}'::jsonb, at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE INDEX exp_parted_operation_idx ON exp_parted (operation_id, id);
SELECT format('CREATE TABLE exp_parted_d%s PARTITION OF exp_parted FOR VALUES FROM (%L) TO (%L)',
              d, date_trunc('day', now()) - d * interval '1 day',
              date_trunc('day', now()) - (d - 1) * interval '1 day'
                  + CASE WHEN d = 0 THEN interval '1 day' ELSE interval '0' END)
FROM generate_series(0, 30) d \gexec

\echo == building: 30 days x :ops_per_day operations x 7 history rows, in each table
INSERT INTO exp_plain (operation_id, revision, event, accepted, details, at)
SELECT 'op-' || d || '-' || o, r, 'snapshot', true, '{"status":"running"}',
       date_trunc('day', now()) - d * interval '1 day' + (o::double precision / :ops_per_day) * interval '23 hours'
FROM generate_series(1, 30) d, generate_series(1, :ops_per_day) o, generate_series(1, 7) r;
INSERT INTO exp_parted (operation_id, revision, event, accepted, details, at)
SELECT operation_id, revision, event, accepted, details, at FROM exp_plain;
VACUUM ANALYZE exp_plain;
VACUUM ANALYZE exp_parted;
SELECT pg_size_pretty(pg_total_relation_size('exp_plain')) AS plain_size;

\echo == reads by operation (ops show, review evidence): 20,000 lookups of random operations
DO $$
DECLARE t0 timestamptz; n bigint; k int;
BEGIN
  FOR k IN 1..2 LOOP  -- the first round warms the caches
    t0 := clock_timestamp(); n := 0;
    FOR i IN 1..20000 LOOP
      n := n + (SELECT count(*) FROM exp_plain
                WHERE operation_id = 'op-' || (1 + (i * 7) % 30) || '-' || (1 + (i * 7919) % 30000));
    END LOOP;
    RAISE NOTICE 'plain: % rows, % ms per lookup', n,
      round(extract(epoch FROM clock_timestamp() - t0) * 1000 / 20000, 4);
    t0 := clock_timestamp(); n := 0;
    FOR i IN 1..20000 LOOP
      n := n + (SELECT count(*) FROM exp_parted
                WHERE operation_id = 'op-' || (1 + (i * 7) % 30) || '-' || (1 + (i * 7919) % 30000));
    END LOOP;
    RAISE NOTICE 'partitioned: % rows, % ms per lookup', n,
      round(extract(epoch FROM clock_timestamp() - t0) * 1000 / 20000, 4);
  END LOOP;
END $$;

\echo == inserts (the only write of the history): 100,000 rows, one statement each
DO $$
DECLARE t0 timestamptz;
BEGIN
  t0 := clock_timestamp();
  FOR i IN 1..100000 LOOP
    INSERT INTO exp_plain (operation_id, revision, event, accepted) VALUES ('new-' || i, 1, 'created', true);
  END LOOP;
  RAISE NOTICE 'plain: % us per insert', round(extract(epoch FROM clock_timestamp() - t0) * 1e6 / 100000, 1);
  t0 := clock_timestamp();
  FOR i IN 1..100000 LOOP
    INSERT INTO exp_parted (operation_id, revision, event, accepted) VALUES ('new-' || i, 1, 'created', true);
  END LOOP;
  RAISE NOTICE 'partitioned: % us per insert', round(extract(epoch FROM clock_timestamp() - t0) * 1e6 / 100000, 1);
END $$;

\echo == retention of the oldest day: its rows deleted in batches of 500 operations (LedgerRetention)
DO $$
DECLARE t0 timestamptz; ids text[]; deleted bigint := 0; n bigint; batch int := 0;
BEGIN
  t0 := clock_timestamp();
  FOR b IN 0..(current_setting('exp.ops_per_day')::int - 1) / 500 LOOP
    ids := ARRAY(SELECT 'op-30-' || o FROM generate_series(b * 500 + 1,
                 least((b + 1) * 500, current_setting('exp.ops_per_day')::int)) o);
    DELETE FROM exp_plain WHERE id = ANY (ARRAY(SELECT id FROM exp_plain WHERE operation_id = ANY (ids)));
    GET DIAGNOSTICS n = ROW_COUNT;
    deleted := deleted + n; batch := batch + 1;
    COMMIT;
  END LOOP;
  RAISE NOTICE 'deleted % rows in % batches: % ms, % ms per batch', deleted, batch,
    round(extract(epoch FROM clock_timestamp() - t0) * 1000),
    round(extract(epoch FROM clock_timestamp() - t0) * 1000 / batch, 1);
END $$;
\echo == and the space: VACUUM after the day's deletion
VACUUM exp_plain;

\echo == the same day as a partition: detached and dropped
ALTER TABLE exp_parted DETACH PARTITION exp_parted_d30;
DROP TABLE exp_parted_d30;

DROP TABLE exp_plain, exp_parted CASCADE;
