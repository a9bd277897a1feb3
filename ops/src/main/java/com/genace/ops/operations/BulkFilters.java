package com.genace.ops.operations;

import com.genace.activities.ledger.OperationSelection;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options that turn {@code ops resolve} and {@code ops cancel} into bulk commands: which
 * operations (from the ledger), whether to act ({@code --apply}; a dry run otherwise) and how fast.
 * An operation ID and these filters exclude each other.
 */
final class BulkFilters {

  /** The default pace of a bulk command: an incident's backlog, without a burst on the fleet. */
  static final String DEFAULT_RATE = "20";

  static final int MAX_RATE = 200;

  @Option(
      names = "--review-reason",
      paramLabel = "REASON",
      description = "Only reviews opened for this reason, e.g. post_outcome_unknown.")
  String reviewReason;

  @Option(names = "--account", paramLabel = "ACCOUNT", description = "Only this account's.")
  String account;

  @Option(names = "--model", paramLabel = "MODEL", description = "Only this model's.")
  String model;

  @Option(
      names = "--older-than",
      paramLabel = "AGE",
      converter = Ages.Converter.class,
      description = "Only operations created at least AGE ago: 90s, 30m, 1h, 2d.")
  Duration olderThan;

  @Option(
      names = "--created-after",
      paramLabel = "TIME",
      converter = TimeConverter.class,
      description =
          "Only operations created at or after TIME (2026-12-05T04:00:00Z, or a UTC date).")
  Instant createdAfter;

  @Option(
      names = "--created-before",
      paramLabel = "TIME",
      converter = TimeConverter.class,
      description = "Only operations created before TIME.")
  Instant createdBefore;

  @Option(names = "--all", description = "No filter: every operation of the phase(s).")
  boolean all;

  @Option(
      names = "--apply",
      description = "Act on the selection (default: a dry run that counts it and shows a sample).")
  boolean apply;

  @Option(
      names = "--rate",
      paramLabel = "N",
      defaultValue = DEFAULT_RATE,
      description =
          "With --apply: at most N operations a second (1.."
              + MAX_RATE
              + "; default ${DEFAULT-VALUE}), four at a time.")
  int rate;

  @Option(names = "--json", description = "Print the count and sample, or the summary, as JSON.")
  boolean json;

  /**
   * Refuses a bulk option beside an operation ID ({@code otherFilter}: a command's own filter was
   * given too); {@code filterNames} lead the message's list of filters.
   */
  void refuseBesideAnId(CommandLine cli, boolean otherFilter, String filterNames) {
    CommandLine.ParseResult parsed = cli.getParseResult();
    if (otherFilter
        || !filtersGiven().isEmpty()
        || all
        || apply
        || json
        || parsed.hasMatchedOption("--rate")) {
      throw new CommandLine.ParameterException(
          cli,
          "give an operation ID or filters ("
              + filterNames
              + ", ...), not both; --all, --apply, --rate and --json go with filters");
    }
  }

  /** The filter options given, as typed. */
  List<String> filtersGiven() {
    List<String> given = new ArrayList<>();
    if (reviewReason != null) {
      given.add("--review-reason " + reviewReason);
    }
    if (account != null) {
      given.add("--account " + account);
    }
    if (model != null) {
      given.add("--model " + model);
    }
    if (olderThan != null) {
      given.add("--older-than " + Ages.format(olderThan));
    }
    if (createdAfter != null) {
      given.add("--created-after " + createdAfter);
    }
    if (createdBefore != null) {
      given.add("--created-before " + createdBefore);
    }
    return given;
  }

  /**
   * The selection in each of {@code phases}, after checking the options together.
   *
   * @throws CommandLine.ParameterException for a selection that is missing, empty or malformed
   */
  List<OperationSelection> selections(
      CommandLine cli, List<Phase> phases, boolean withoutCancelRequest) {
    if (filtersGiven().isEmpty() && !all) {
      throw new CommandLine.ParameterException(
          cli,
          "give an operation ID, or select operations with --review-reason, --account, --model,"
              + " --older-than, --created-after, --created-before (or --all)");
    }
    if (all && !filtersGiven().isEmpty()) {
      throw new CommandLine.ParameterException(
          cli, "--all selects everything: give it alone, or give filters");
    }
    if (rate < 1 || rate > MAX_RATE) {
      throw new CommandLine.ParameterException(
          cli, "--rate must be between 1 and " + MAX_RATE + " a second");
    }
    if (reviewReason != null) {
      try {
        ReviewReason.parse(reviewReason);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cli, e.getMessage());
      }
    }
    if (createdAfter != null && createdBefore != null && !createdAfter.isBefore(createdBefore)) {
      throw new CommandLine.ParameterException(
          cli, "--created-after must be before --created-before");
    }
    List<OperationSelection> selections = new ArrayList<>();
    for (Phase phase : phases) {
      selections.add(
          new OperationSelection(
              phase,
              Optional.ofNullable(reviewReason),
              Optional.ofNullable(account),
              Optional.ofNullable(model),
              olderThan == null ? Duration.ZERO : olderThan,
              Optional.ofNullable(createdAfter),
              Optional.ofNullable(createdBefore),
              withoutCancelRequest));
    }
    return selections;
  }

  /** {@code --created-after} and {@code --created-before}: an ISO instant, or a date (UTC). */
  static final class TimeConverter implements CommandLine.ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      try {
        return value.contains("T")
            ? Instant.parse(value.trim())
            : LocalDate.parse(value.trim()).atStartOfDay(ZoneOffset.UTC).toInstant();
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a time such as 2026-12-05T04:00:00Z or a date 2026-12-05");
      }
    }
  }
}
