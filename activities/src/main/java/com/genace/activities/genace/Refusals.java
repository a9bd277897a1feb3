package com.genace.activities.genace;

import java.util.Set;

/**
 * The one rule that tells a refusal of this request from a refusal of the whole account. Both
 * created nothing; they differ in what sending again would do: the same request is refused again,
 * while any request succeeds again once the account is fixed.
 *
 * <ul>
 *   <li>400, 422: this request is wrong.
 *   <li>401: the key is missing, revoked or rotated ({@link AccountProblem#AUTHENTICATION}).
 *   <li>402: the credits ran out ({@link AccountProblem#CREDITS}).
 *   <li>403: about this request when the body's {@code error.code} says so ({@value
 *       #MODEL_FORBIDDEN}: the account may not use this model; {@value #INPUT_FORBIDDEN}: the input
 *       breaks a policy); otherwise, and when the body cannot be read, about the account.
 * </ul>
 *
 * <p>A malformed body is classified by the status alone. Holding the backlog back is the safe side
 * of the doubt: a request-specific refusal taken for the account's pauses dispatch until a probe
 * passes, whereas the other mistake would fail every queued operation for good.
 */
final class Refusals {

  static final String MODEL_FORBIDDEN = "model_forbidden";
  static final String INPUT_FORBIDDEN = "input_forbidden";

  /** The statuses that mean "refused, nothing created". */
  static final Set<Integer> STATUSES = Set.of(400, 401, 402, 403, 422);

  private static final Set<String> REQUEST_FORBIDDEN = Set.of(MODEL_FORBIDDEN, INPUT_FORBIDDEN);

  private Refusals() {}

  /**
   * @param status one of {@link #STATUSES}
   * @param reason the refusal as shown to people, already free of secrets
   */
  static CreateOutcome classify(int status, byte[] body, String reason) {
    return switch (status) {
      case 401 -> new CreateOutcome.AccountRefused(status, AccountProblem.AUTHENTICATION, reason);
      case 402 -> new CreateOutcome.AccountRefused(status, AccountProblem.CREDITS, reason);
      case 403 ->
          ResponseParser.errorCode(body).filter(REQUEST_FORBIDDEN::contains).isPresent()
              ? new CreateOutcome.Refused(status, reason)
              : new CreateOutcome.AccountRefused(status, AccountProblem.AUTHENTICATION, reason);
      case 400, 422 -> new CreateOutcome.Refused(status, reason);
      default -> throw new IllegalArgumentException("not a refusal status: " + status);
    };
  }
}
