package com.genace.activities.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.model.NextAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The ledger tests' shared setup: before each test the shared PostgreSQL emptied ({@link
 * TestDatabase#clear()}), an {@link OperationsLedger} on it, and the rows the test starts from;
 * then helpers that put operations into known states through the ledger's own API.
 *
 * <pre>{@code
 * @RegisterExtension
 * final LedgerFixtures fixtures = LedgerFixtures.fresh().given(f -> f.observing(OP, JOB));
 *
 * private final OperationsLedger ledger = fixtures.ledger();
 * }</pre>
 *
 * <p>The ledger exists from the test instance's construction (building one touches no database), so
 * a test's fields may take it; the database is emptied and the {@linkplain #given given} rows put
 * in before each test, before the test's own {@code @BeforeEach} methods. It also resolves {@link
 * DataSource} parameters, as {@link DatabaseExtension} does: a test registers one or the other,
 * never both.
 *
 * <p>Why here and not in {@code testkit}: {@code testkit} holds the stand-ins for the outside world
 * (the simulator, the embedded PostgreSQL) and depends on nothing of the worker, so it cannot see
 * {@link OperationsLedger}. The shared database these tests use already lives here ({@link
 * TestDatabase}, {@link DatabaseExtension}), published with the rest of {@code
 * com.genace.activities.testing} as the activities test jar that {@code worker} and {@code ops}
 * reuse.
 */
public final class LedgerFixtures implements BeforeEachCallback, ParameterResolver {

  /** The owner the helpers claim as. */
  public static final String WORKER = "worker-a";

  private final OperationsLedger ledger;
  private final DataSource dataSource;
  private final Consumer<LedgerFixtures> given;

  private LedgerFixtures(
      OperationsLedger ledger, DataSource dataSource, Consumer<LedgerFixtures> given) {
    this.ledger = ledger;
    this.dataSource = dataSource;
    this.given = given;
  }

  /** A ledger with the default lease duration on an emptied database, before each test. */
  public static LedgerFixtures fresh() {
    return fresh(OperationsLedger.DEFAULT_LEASE_DURATION);
  }

  /** A ledger whose leases last {@code leaseDuration} on an emptied database, before each test. */
  public static LedgerFixtures fresh(Duration leaseDuration) {
    DataSource dataSource = TestDatabase.dataSource();
    return new LedgerFixtures(new OperationsLedger(dataSource, leaseDuration), dataSource, f -> {});
  }

  /**
   * The helpers alone, through {@code ledger} on {@code dataSource}: for a second ledger (other
   * leases, another worker) in a test, or a test that is not run by JUnit Jupiter (jqwik's
   * properties). Not an extension: it empties nothing.
   */
  public static LedgerFixtures over(OperationsLedger ledger, DataSource dataSource) {
    return new LedgerFixtures(ledger, dataSource, null);
  }

  /** The rows every test starts from, put in after the database is emptied. */
  public LedgerFixtures given(Consumer<LedgerFixtures> rows) {
    requireExtension();
    Consumer<LedgerFixtures> before = given;
    return new LedgerFixtures(ledger, dataSource, before.andThen(rows));
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    requireExtension();
    TestDatabase.clear();
    given.accept(this);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == DataSource.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return dataSource;
  }

  private void requireExtension() {
    if (given == null) {
      throw new IllegalStateException(
          "LedgerFixtures.over(...) empties nothing; register LedgerFixtures.fresh()");
    }
  }

  public OperationsLedger ledger() {
    return ledger;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** Created pending (model {@code image-v1}, a fox). */
  public void pending(String operationId) {
    assertThat(ledger.create(new NewOperation(operationId, "image-v1", "{\"prompt\":\"a fox\"}")))
        .isTrue();
  }

  /** {@code action} claimed by {@code owner}: the lease it holds. */
  public Lease claim(String operationId, String owner, NextAction action) {
    ClaimResult result = ledger.claim(operationId, owner, action);
    assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
    return ((ClaimResult.Acquired) result).lease();
  }

  /**
   * Pending, claimed for dispatch by {@link #WORKER}, marked submitting: a POST may be in flight.
   */
  public Lease submitting(String operationId) {
    pending(operationId);
    Lease lease = claim(operationId, WORKER, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    return lease;
  }

  /** Accepted by Genace as {@code remoteJobId}, lease released, ready to observe. */
  public void observing(String operationId, String remoteJobId) {
    Lease lease = submitting(operationId);
    assertThat(ledger.recordAccepted(lease, remoteJobId)).isEqualTo(WriteResult.APPLIED);
  }

  /** Moves the lease's expiry into the past: what waiting out the lease would do. */
  public void expireLease(String operationId) {
    execute(
        "UPDATE app_generation_operations SET lease_until = clock_timestamp() - interval '1 ms'"
            + " WHERE operation_id = ? AND lease_until IS NOT NULL",
        operationId);
  }

  /** Runs {@code sql}, whose one parameter is {@code operationId}. */
  public void execute(String sql, String operationId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, operationId);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
