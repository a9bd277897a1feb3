-- Each account's fairness weight (0.2.0, `./genace ops accounts set ACCOUNT --weight W`): its share
-- of the task queues' capacity against other accounts' when work is backlogged, as Temporal's
-- fairness weight overrides of its key (the account). The ledger holds it; workers apply it to
-- Temporal's task queues when they start, and the command when it is set. NULL: Temporal's default
-- weight (1). The bounds keep a typo from starving or flooding: 1000 to 1 is the widest ratio.
ALTER TABLE app_account_settings
    ADD COLUMN fairness_weight double precision
        CHECK (fairness_weight >= 0.001 AND fairness_weight <= 1000);
