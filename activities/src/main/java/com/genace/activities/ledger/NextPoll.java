package com.genace.activities.ledger;

import java.time.Duration;

/** A claimed operation's next poll: {@code delay} from when it is written. */
public record NextPoll(DuePoll claimed, Duration delay) {}
