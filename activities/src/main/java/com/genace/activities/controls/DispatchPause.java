package com.genace.activities.controls;

import java.time.Instant;

/** A fleet-wide pause of dispatch: who asked, why, and when. */
public record DispatchPause(String pausedBy, String reason, Instant since) {}
