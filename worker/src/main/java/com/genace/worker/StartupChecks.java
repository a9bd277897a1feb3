package com.genace.worker;

import com.genace.activities.db.Migrations;
import com.genace.activities.genace.GenaceAuthenticationException;
import com.genace.client.connection.GenerationConnection;
import com.genace.client.connection.TemporalSettings;
import com.genace.worker.temporal.SearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * What a worker checks before it polls its task queues. Problems that waiting may fix (Temporal, a
 * database or Genace down or still starting, a schema not migrated yet) are returned and retried;
 * problems that it will not fix (refused credentials, a missing database, namespace or search
 * attribute) throw {@link StartupFailure}, and the worker exits 1 with that one line.
 */
final class StartupChecks {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(StartupChecks.class);

  /** An operation id no application uses: the search for it tells only whether it is offered. */
  static final String SEARCH_PROBE = "genace-startup-search-probe";

  /** SQLSTATE classes a retry will not fix: invalid authorization (28), unknown database. */
  private static final String INVALID_AUTHORIZATION = "28";

  private static final String INVALID_CATALOG = "3D000";

  /** gRPC codes of a Temporal that does not answer (yet): waiting may fix them. */
  private static final Set<Status.Code> UNREACHABLE =
      Set.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);

  private final WorkerStack stack;
  private final String temporalAddress;

  StartupChecks(WorkerStack stack, String temporalAddress) {
    this.stack = stack;
    this.temporalAddress = temporalAddress;
  }

  /**
   * Null when Temporal answers, the namespace exists and has the workflow's search attributes;
   * {@code temporal_unreachable: ...} while Temporal does not answer (an outage, a server still
   * starting: retried).
   *
   * @throws StartupFailure when it answers with what waiting will not fix: refused credentials, a
   *     missing namespace or search attribute (naming what is missing and how to create it)
   */
  String temporalProblem() {
    String namespace = stack.config.temporalNamespace();
    try {
      stack.stubs.connect(GenerationConnection.CONNECT_TIMEOUT);
      stack
          .stubs
          .blockingStub()
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(namespace).build());
      Optional<Map<String, IndexedValueType>> missing =
          SearchAttributes.missing(stack.stubs, namespace);
      missing
          .filter(m -> !m.isEmpty())
          .ifPresent(
              m -> {
                throw new StartupFailure(
                    "namespace "
                        + namespace
                        + " on "
                        + temporalAddress
                        + " lacks the search attributes "
                        + String.join(", ", m.keySet())
                        + "; create them with: "
                        + SearchAttributes.createCommand(m, namespace),
                    null);
              });
      return null;
    } catch (StatusRuntimeException e) {
      if (UNREACHABLE.contains(e.getStatus().getCode())) {
        return unreachable(e);
      }
      throw new StartupFailure(namespaceProblem(e, namespace), e);
    } catch (IllegalStateException e) {
      return unreachable(e); // connect's health check did not answer in time
    }
  }

  private String unreachable(RuntimeException e) {
    return "temporal_unreachable: cannot reach Temporal at "
        + temporalAddress
        + " ("
        + TemporalSettings.ADDRESS
        + "): "
        + GenerationConnection.describe(e);
  }

  private String namespaceProblem(StatusRuntimeException e, String namespace) {
    Status.Code code = e.getStatus().getCode();
    if (code == Status.Code.NOT_FOUND) {
      return TemporalSettings.NAMESPACE
          + ": namespace "
          + namespace
          + " does not exist on "
          + temporalAddress
          + "; create it with: temporal operator namespace create --namespace "
          + namespace;
    }
    if (code == Status.Code.UNAUTHENTICATED || code == Status.Code.PERMISSION_DENIED) {
      return "Temporal at "
          + temporalAddress
          + " refused this worker's credentials for namespace "
          + namespace
          + " (check TEMPORAL_API_KEY and TEMPORAL_TLS): "
          + GenerationConnection.describe(e);
    }
    return "Temporal at "
        + temporalAddress
        + " could not describe namespace "
        + namespace
        + ": "
        + GenerationConnection.describe(e);
  }

  /**
   * Null when the ledger, its schema, Genace and the artifact store answer; otherwise the first
   * problem, to retry.
   *
   * @throws StartupFailure when the database refuses the credentials or the database name
   */
  String problem() {
    DataSource dataSource = stack.database.dataSource();
    try (Connection connection = dataSource.getConnection()) {
      connection.isValid(5);
    } catch (SQLException e) {
      SQLException cause = driverCause(e);
      String state = Optional.ofNullable(cause.getSQLState()).orElse("");
      String why = Optional.ofNullable(cause.getMessage()).orElse(cause.getClass().getName());
      if (state.startsWith(INVALID_AUTHORIZATION) || state.equals(INVALID_CATALOG)) {
        throw new StartupFailure(
            "DATABASE_URL (" + stack.config.databaseUrl() + ") was refused: " + why, e);
      }
      return "ledger_unavailable: " + why;
    }
    int pending;
    try {
      pending = Migrations.pending(dataSource);
    } catch (RuntimeException e) {
      return "ledger_unavailable: " + rootMessage(e);
    }
    if (pending > 0) {
      return "schema_missing: " + pending + " migration(s) not applied; run ./genace db migrate";
    }
    try {
      stack.genace.listModels();
    } catch (GenaceAuthenticationException e) {
      return "genace_authentication_failed: check GENACE_API_KEY";
    } catch (RuntimeException e) {
      return "genace_unavailable: " + rootMessage(e);
    }
    reportSearch();
    return stack
        .config
        .artifacts()
        .problem(stack.artifacts)
        .map(problem -> "artifact_store_unavailable: " + problem)
        .orElse(null);
  }

  /**
   * Says once whether this Genace offers the search by operation id: without it, reviews gather
   * less evidence and never settle themselves. Each review asks again, so this only informs.
   */
  private void reportSearch() {
    try {
      boolean offered = stack.genace.search(SEARCH_PROBE).isPresent();
      log.info(
          offered
              ? "Genace offers the search by operation id: reviews gather it as evidence"
              : "Genace does not offer the search by operation id: reviews wait for an operator");
    } catch (RuntimeException e) {
      log.info(
          "could not tell whether Genace offers the search by operation id: {}", e.getMessage());
    }
  }

  /** The driver's own exception under the pool's wrapper ("connection is not available"). */
  private static SQLException driverCause(SQLException e) {
    SQLException deepest = e;
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof SQLException sql) {
        deepest = sql;
      }
    }
    return deepest;
  }

  static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() != null ? root.getMessage() : e.getMessage();
    return message != null ? message : root.getClass().getSimpleName();
  }
}
