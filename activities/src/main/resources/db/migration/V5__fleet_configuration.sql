-- The fleet's current configuration version (set by `./genace ops set-config-version`). A worker
-- deployed with another version takes no dispatch until redeployed; observation and delivery go on.
-- One row at most: the fleet has one current version.
CREATE TABLE app_fleet_configuration (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    config_version text NOT NULL CHECK (length(config_version) BETWEEN 1 AND 100),
    changed_by     text NOT NULL,
    reason         text,
    changed_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
