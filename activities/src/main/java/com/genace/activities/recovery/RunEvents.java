package com.genace.activities.recovery;

import com.genace.client.CarriedState;
import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationSearchAttributes;
import com.genace.client.OperationResult;
import com.genace.workflows.delivery.DeliveryResult;
import com.genace.workflows.dispatch.DispatchActivities;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one run's history events into a {@link RunRecord}: the request it started with, the job ids
 * its dispatches, search attributes, carried state and result hold, which dispatch attempts have no
 * recorded response, and what its delivery copied. Payloads are decoded with the client's data
 * converter (and so its codec); one that cannot be decoded is noted, never guessed at.
 */
final class RunEvents {

  /** Failure types of a dispatch that prove nothing left (DispatchActivities' contract). */
  private static final Set<String> NOTHING_SENT =
      Set.of(DispatchActivities.NOTHING_SENT, DispatchActivities.NOT_REGISTERED);

  private final DataConverter converter;
  private final String runId;

  private final Map<Long, String> scheduledTypes = new HashMap<>();
  private final Set<Long> started = new HashSet<>();
  private final Set<Long> closed = new HashSet<>();
  private final List<JobSighting> jobs = new ArrayList<>();
  private final List<String> unanswered = new ArrayList<>();
  private final List<DeliveredArtifact> delivered = new ArrayList<>();
  private final List<String> unreadable = new ArrayList<>();
  private GenerationRequest request;
  private OperationResult result;
  private String status = RunRecord.RUNNING;
  private Instant startedAt;
  private int dispatchesStarted;
  private boolean registered;

  /** The run this one continued from, and the one it continued as, when the history says. */
  private String previousRunId;

  private String nextRunId;

  RunEvents(DataConverter converter, String runId) {
    this.converter = converter;
    this.runId = runId;
  }

  void add(HistoryEvent event) {
    switch (event.getEventType()) {
      case EVENT_TYPE_WORKFLOW_EXECUTION_STARTED -> {
        var started = event.getWorkflowExecutionStartedEventAttributes();
        startedAt =
            Instant.ofEpochSecond(
                event.getEventTime().getSeconds(), event.getEventTime().getNanos());
        previousRunId = blankToNull(started.getContinuedExecutionRunId());
        readInput(started.getInput(), "start input");
      }
      case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
        String type = event.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        scheduledTypes.put(event.getEventId(), type);
        registered |= ActivityTypes.PAST_DISPATCH.contains(type);
      }
      case EVENT_TYPE_ACTIVITY_TASK_STARTED -> {
        long scheduled = event.getActivityTaskStartedEventAttributes().getScheduledEventId();
        started.add(scheduled);
        if (isDispatch(scheduled)) {
          dispatchesStarted++;
        }
      }
      case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> {
        var completed = event.getActivityTaskCompletedEventAttributes();
        closed.add(completed.getScheduledEventId());
        activityCompleted(completed.getScheduledEventId(), completed.getResult());
      }
      case EVENT_TYPE_ACTIVITY_TASK_FAILED -> {
        var failed = event.getActivityTaskFailedEventAttributes();
        closed.add(failed.getScheduledEventId());
        if (isDispatch(failed.getScheduledEventId()) && !provesNothingSent(failed.getFailure())) {
          unanswered.add(attempt(failed.getScheduledEventId()) + " failed without an answer");
        }
      }
      case EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT -> {
        long scheduled = event.getActivityTaskTimedOutEventAttributes().getScheduledEventId();
        closed.add(scheduled);
        if (isDispatch(scheduled) && started.contains(scheduled)) {
          unanswered.add(attempt(scheduled) + " timed out after it started");
        }
      }
      case EVENT_TYPE_ACTIVITY_TASK_CANCELED -> {
        long scheduled = event.getActivityTaskCanceledEventAttributes().getScheduledEventId();
        closed.add(scheduled);
        if (isDispatch(scheduled) && started.contains(scheduled)) {
          unanswered.add(attempt(scheduled) + " was cancelled after it started");
        }
      }
      case EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES ->
          readSearchAttributes(
              event
                  .getUpsertWorkflowSearchAttributesEventAttributes()
                  .getSearchAttributes()
                  .getIndexedFieldsMap());
      case EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED -> {
        status = RunRecord.COMPLETED;
        result =
            decode(
                event.getWorkflowExecutionCompletedEventAttributes().getResult(),
                0,
                OperationResult.class,
                "result");
        if (result != null && result.remoteJobId() != null) {
          jobs.add(new JobSighting(result.remoteJobId(), null, runId, JobSighting.RESULT));
        }
      }
      case EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW -> {
        status = "CONTINUED_AS_NEW";
        var continued = event.getWorkflowExecutionContinuedAsNewEventAttributes();
        nextRunId = blankToNull(continued.getNewExecutionRunId());
        readInput(continued.getInput(), "continue-as-new input");
      }
      case EVENT_TYPE_WORKFLOW_EXECUTION_FAILED -> status = "FAILED";
      case EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT -> status = "TIMED_OUT";
      case EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED -> status = "TERMINATED";
      case EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED -> status = "CANCELED";
      default -> {}
    }
  }

  RunRecord record() {
    List<String> open = new ArrayList<>(unanswered);
    if (!RunRecord.RUNNING.equals(status)) {
      // A dispatch still in flight when the run closed: nothing will ever report its answer.
      for (Long scheduled : started) {
        if (isDispatch(scheduled) && !closed.contains(scheduled)) {
          open.add(attempt(scheduled) + " was in flight when the run closed " + status);
        }
      }
    }
    return new RunRecord(
        runId,
        status,
        startedAt,
        request,
        jobs,
        open,
        dispatchesStarted,
        delivered,
        Optional.ofNullable(result),
        unreadable,
        registered);
  }

  String previousRunId() {
    return previousRunId;
  }

  String nextRunId() {
    return nextRunId;
  }

  private void activityCompleted(long scheduled, Payloads result) {
    String type = scheduledTypes.get(scheduled);
    if (type == null) {
      return;
    }
    registered |= ActivityTypes.REGISTERING.contains(type);
    if (ActivityTypes.DISPATCH.contains(type)) {
      DispatchResult dispatched = decode(result, 0, DispatchResult.class, attempt(scheduled));
      if (dispatched == null) {
        unanswered.add(attempt(scheduled) + " answered, but its result could not be read");
        return;
      }
      if (dispatched.outcome() == DispatchOutcome.ACCEPTED && dispatched.remoteJobId() != null) {
        jobs.add(
            new JobSighting(
                dispatched.remoteJobId(),
                dispatched.credits(),
                runId,
                JobSighting.DISPATCH_ACCEPTED));
      } else if (dispatched.outcome() == DispatchOutcome.UNKNOWN) {
        if (dispatched.remoteJobId() != null) {
          jobs.add(
              new JobSighting(
                  dispatched.remoteJobId(), null, runId, JobSighting.DISPATCH_UNRECORDED));
        } else {
          unanswered.add(attempt(scheduled) + " reported an unknown outcome");
        }
      }
    } else if (ActivityTypes.DELIVER.equals(type)) {
      DeliveryResult delivery = decode(result, 0, DeliveryResult.class, "delivery result");
      if (delivery != null) {
        delivered.clear();
        delivered.addAll(delivery.artifacts());
      }
    }
  }

  private void readInput(Payloads input, String what) {
    GenerationRequest started = decode(input, 0, GenerationRequest.class, what);
    if (request == null) {
      request = started;
    }
    if (input.getPayloadsCount() > 1) {
      CarriedState carried = decode(input, 1, CarriedState.class, what);
      if (carried != null) {
        if (carried.remoteJobId() != null) {
          jobs.add(
              new JobSighting(
                  carried.remoteJobId(), carried.credits(), runId, JobSighting.CARRIED));
        }
        for (String seen : carried.jobIdsSeen()) {
          jobs.add(new JobSighting(seen, null, runId, JobSighting.SEEN));
        }
      }
    }
  }

  private void readSearchAttributes(Map<String, Payload> fields) {
    // Search attributes are never encoded by a payload codec: the standard converter reads them.
    DataConverter plain = DefaultDataConverter.STANDARD_INSTANCE;
    Payload jobId = fields.get(GenerationSearchAttributes.REMOTE_JOB_ID.getName());
    if (jobId == null) {
      return;
    }
    try {
      String id = plain.fromPayload(jobId, String.class, String.class);
      Payload credits = fields.get(GenerationSearchAttributes.CREDITS.getName());
      Long committed = credits == null ? null : plain.fromPayload(credits, Long.class, Long.class);
      if (id != null && !id.isBlank()) {
        jobs.add(new JobSighting(id, committed, runId, JobSighting.SEARCH_ATTRIBUTE));
      }
    } catch (RuntimeException e) {
      unreadable.add(
          "search attribute "
              + GenerationSearchAttributes.REMOTE_JOB_ID.getName()
              + ": "
              + e.getMessage());
    }
  }

  private <T> T decode(Payloads payloads, int index, Class<T> type, String what) {
    if (payloads == null || payloads.getPayloadsCount() <= index) {
      return null;
    }
    try {
      return converter.fromPayloads(index, Optional.of(payloads), type, type);
    } catch (RuntimeException e) {
      unreadable.add(what + " of run " + runId + ": " + e.getMessage());
      return null;
    }
  }

  private boolean isDispatch(long scheduled) {
    return ActivityTypes.DISPATCH.contains(scheduledTypes.get(scheduled));
  }

  private static boolean provesNothingSent(Failure failure) {
    for (Failure f = failure; f != null; f = f.hasCause() ? f.getCause() : null) {
      if (f.hasApplicationFailureInfo()
          && NOTHING_SENT.contains(f.getApplicationFailureInfo().getType())) {
        return true;
      }
    }
    return false;
  }

  private String attempt(long scheduled) {
    return "dispatch (event " + scheduled + ") in run " + runId;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
