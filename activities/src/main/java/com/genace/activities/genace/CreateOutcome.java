package com.genace.activities.genace;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a {@code POST} that asks Genace to create a paid render ended. The cases differ in the one
 * thing that matters for money: whether a job may exist.
 *
 * <ul>
 *   <li>{@link Accepted}: a job exists and its id is known.
 *   <li>{@link Refused}, {@link AccountRefused}, {@link RateLimited}, {@link NotSent}: no job was
 *       created.
 *   <li>{@link Unknown}: a job may or may not exist; sending again could pay twice.
 * </ul>
 */
public sealed interface CreateOutcome {

  /** A short human-readable account of the outcome; never contains the API key. */
  String describe();

  /**
   * 2xx with a body naming the new job.
   *
   * @param remoteJobId Genace's id for the job
   * @param status the status Genace reported, or {@code null} if the body carried none
   */
  record Accepted(String remoteJobId, String status) implements CreateOutcome {
    public Accepted {
      Objects.requireNonNull(remoteJobId, "remoteJobId");
    }

    @Override
    public String describe() {
      return "accepted as " + remoteJobId;
    }
  }

  /**
   * 400, 422, or a 403 naming this request's model or input: Genace refused this request and
   * created nothing; sending it again would be refused again.
   */
  record Refused(int httpStatus, String reason) implements CreateOutcome {
    @Override
    public String describe() {
      return "refused: " + reason;
    }
  }

  /**
   * 401, 402, or a 403 about the account: Genace refuses every request of this account for now and
   * created nothing. The request itself may be fine; it can be sent again once the account is.
   */
  record AccountRefused(int httpStatus, AccountProblem problem, String reason)
      implements CreateOutcome {
    public AccountRefused {
      Objects.requireNonNull(problem, "problem");
    }

    @Override
    public String describe() {
      return "refused for the account (" + problem.wire() + "): " + reason;
    }
  }

  /** 429: nothing was created; try again after {@code retryAfter}. */
  record RateLimited(Duration retryAfter) implements CreateOutcome {
    public RateLimited {
      Objects.requireNonNull(retryAfter, "retryAfter");
    }

    @Override
    public String describe() {
      return "rate limited, retry after " + retryAfter;
    }
  }

  /** The connection was never established, so no request byte left this machine. */
  record NotSent(String reason) implements CreateOutcome {
    @Override
    public String describe() {
      return "not sent: " + reason;
    }
  }

  /**
   * The request may have reached Genace and created a paid job (5xx, an unexpected status, a
   * timeout or a dropped connection after sending, a malformed success body). Never resend
   * automatically: this needs reconciliation.
   *
   * @param httpStatus the status Genace answered with (5xx, unexpected, or 2xx without a job id);
   *     empty when no response came back (timed out, connection dropped after sending)
   */
  record Unknown(String reason, OptionalInt httpStatus) implements CreateOutcome {
    public Unknown {
      Objects.requireNonNull(httpStatus, "httpStatus");
    }

    /** No response came back. */
    public Unknown(String reason) {
      this(reason, OptionalInt.empty());
    }

    @Override
    public String describe() {
      return "outcome unknown: " + reason;
    }
  }
}
