package com.genace.activities.recovery;

import java.util.Set;

/** The generation workflow's activity types, as its histories and describes name them. */
public final class ActivityTypes {

  /** The dispatch attempts: the first one registers the operation too. */
  public static final Set<String> DISPATCH = Set.of("Dispatch", "RegisterAndDispatch");

  /** The observation, which waits for the poll schedule's outcome. */
  public static final String AWAIT_REMOTE_JOB = "AwaitRemoteJob";

  public static final String DELIVER = "Deliver";

  /** One of these completed: the operation was in the ledger. */
  public static final Set<String> REGISTERING = Set.of("Register", "RegisterAndDispatch");

  /** A run with one of these pending went on past its dispatch, with a job. */
  public static final Set<String> PAST_DISPATCH = Set.of(AWAIT_REMOTE_JOB, DELIVER);

  private ActivityTypes() {}
}
