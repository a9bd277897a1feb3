-- Roles per duty (0.2.0): three NOLOGIN roles that a deployment grants to its logins, so that no one
-- needs the schema owner's credentials to read the ledger or to work it.
--
--   genace_read     SELECT on every ledger table (ops list, show, spend; dashboards).
--   genace_operate  genace_read, plus the fleet's controls: pause and resume dispatch, the circuit,
--                   the fleet's configuration version (app_worker_controls, app_fleet_configuration).
--   genace_worker   what a worker does: SELECT, INSERT, UPDATE, DELETE on the ledger's tables and
--                   their sequences; no DDL (no CREATE on the schema, no ownership).
--
-- Roles belong to the cluster, not to the database: each is created only when it does not exist,
-- and only by a migrating role allowed to (CREATEROLE); without that right the migration says so
-- in a NOTICE and grants to the roles that exist. A role an administrator creates later gets its
-- grants by hand: docs/deployment.md lists the same statements.
--
-- Default privileges make the tables of later migrations (created by the same owner) readable by
-- genace_read and writable by genace_worker without another grant.
DO $$
DECLARE
    duty text;
BEGIN
    FOREACH duty IN ARRAY ARRAY['genace_read', 'genace_operate', 'genace_worker'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = duty) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', duty);
            EXCEPTION WHEN insufficient_privilege THEN
                RAISE NOTICE 'role % not created: % may not create roles; create it (NOLOGIN) and grant as docs/deployment.md shows', duty, current_user;
            END;
        END IF;
    END LOOP;
END
$$;

DO $$
DECLARE
    schema_name text := current_schema();
    ledger_tables text := 'app_generation_operations, app_generation_transitions, app_worker_controls,'
        || ' app_fleet_configuration, app_fleet_statistics, app_review_evidence,'
        || ' app_review_evidence_history, app_sweep_cursor, app_dispatch_reservations,'
        || ' app_allowance_counters, app_allowance_slices';
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_read') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO genace_read', schema_name);
        EXECUTE 'GRANT SELECT ON ' || ledger_tables || ' TO genace_read';
        -- Flyway's record: the commands check that every migration is applied before they read.
        EXECUTE 'GRANT SELECT ON flyway_schema_history TO genace_read';
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO genace_read',
                       schema_name);
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_operate') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_read') THEN
            GRANT genace_read TO genace_operate;
        END IF;
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO genace_operate', schema_name);
        GRANT SELECT, INSERT, UPDATE ON app_worker_controls, app_fleet_configuration
            TO genace_operate;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'genace_worker') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO genace_worker', schema_name);
        EXECUTE 'GRANT SELECT, INSERT, UPDATE, DELETE ON ' || ledger_tables || ' TO genace_worker';
        EXECUTE 'GRANT SELECT ON flyway_schema_history TO genace_worker';
        EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO genace_worker',
                       schema_name);
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I'
                       || ' GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO genace_worker',
                       schema_name);
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I'
                       || ' GRANT USAGE, SELECT ON SEQUENCES TO genace_worker', schema_name);
    END IF;
END
$$;
