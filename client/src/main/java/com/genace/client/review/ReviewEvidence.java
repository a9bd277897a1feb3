package com.genace.client.review;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What Genace could tell about an operation when its review opened: the jobs behind any id seen in
 * the failed exchange, and the jobs its optional search lists for the operation id.
 *
 * @param operationId the operation under review
 * @param jobs every job found, in the order found
 * @param search {@value #SEARCHED}, {@value #NOT_OFFERED}, or {@code failed: <why>}
 * @param searchedSeconds how long the search was repeated (it may lag creation by a few seconds)
 * @param notes what else was learned, e.g. a job id from the exchange that Genace does not know
 * @param selfSettleJobId the job the review settles itself with (exactly one candidate, and
 *     self-settling on), else null
 * @param unreadJobs the job ids this operation is known to have seen that Genace did not answer for
 *     ({@code <id>: <why>}); empty in evidence gathered before 0.2.0
 */
public record ReviewEvidence(
    String operationId,
    List<EvidenceJob> jobs,
    String search,
    long searchedSeconds,
    List<String> notes,
    String selfSettleJobId,
    List<String> unreadJobs) {

  public static final String SEARCHED = "searched";
  public static final String NOT_OFFERED = "not_offered";

  public ReviewEvidence {
    jobs = jobs == null ? List.of() : List.copyOf(jobs);
    notes = notes == null ? List.of() : List.copyOf(notes);
    unreadJobs = unreadJobs == null ? List.of() : List.copyOf(unreadJobs);
  }

  /** Evidence in which every job id seen was read. */
  public ReviewEvidence(
      String operationId,
      List<EvidenceJob> jobs,
      String search,
      long searchedSeconds,
      List<String> notes,
      String selfSettleJobId) {
    this(operationId, jobs, search, searchedSeconds, notes, selfSettleJobId, List.of());
  }

  /**
   * What the gathering could not look at: a search that did not answer (a search this Genace does
   * not offer is an answer), and each job id seen that Genace did not answer for. Absence of a job
   * in such evidence proves nothing, so {@code not_submitted} is not applied on it.
   *
   * @return the reasons in one line, or empty when everything that could be read was read
   */
  public Optional<String> unchecked() {
    List<String> reasons = new ArrayList<>();
    if (!SEARCHED.equals(search) && !NOT_OFFERED.equals(search)) {
      reasons.add("the search " + search);
    }
    for (String unread : unreadJobs) {
      reasons.add("job " + unread);
    }
    return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
  }

  /** The distinct jobs that carry this operation id: what a POST of this operation created. */
  public List<EvidenceJob> candidates() {
    Map<String, EvidenceJob> byId = new LinkedHashMap<>();
    for (EvidenceJob job : jobs) {
      if (Objects.equals(job.operationId(), operationId)) {
        byId.putIfAbsent(job.id(), job);
      }
    }
    return List.copyOf(byId.values());
  }

  /** Several jobs carry this operation id: it was paid for more than once. */
  public boolean duplicates() {
    return candidates().size() > 1;
  }

  /** One line for operators: the candidates, or why there are none. */
  public String summary() {
    List<EvidenceJob> candidates = candidates();
    List<String> parts = new ArrayList<>();
    if (candidates.size() > 1) {
      parts.add(
          "DUPLICATES: "
              + candidates.size()
              + " jobs on Genace carry this operation id: "
              + String.join(", ", candidates.stream().map(EvidenceJob::describe).toList()));
    } else if (candidates.size() == 1) {
      parts.add("1 job on Genace carries this operation id: " + candidates.get(0).describe());
    } else if (SEARCHED.equals(search)) {
      parts.add(
          "no job found after "
              + searchedSeconds
              + " s of search (absence is no proof that nothing arrived)");
    } else if (NOT_OFFERED.equals(search)) {
      parts.add("search not offered by this Genace; no job found");
    } else {
      parts.add("search " + search + "; no job found");
    }
    parts.addAll(notes);
    return String.join("; ", parts);
  }
}
