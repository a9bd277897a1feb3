package com.genace.worker.support;

import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's test server behind TLS that answers only calls carrying one API key as a bearer token,
 * as Temporal Cloud does with API keys. The key it accepts can be changed ({@link #accept}), as a
 * key rotated in Cloud is: from then on the old key is refused ({@code UNAUTHENTICATED}).
 */
public final class ApiKeyTemporalServer implements AutoCloseable {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final TestServicesStarter services;
  private final Server server;
  private final List<String> accepted = new CopyOnWriteArrayList<>();
  private volatile String acceptedKey;

  /** Serves with this certificate and key (PEM) and accepts {@code acceptedKey}. */
  public ApiKeyTemporalServer(Path cert, Path key, String acceptedKey) throws IOException {
    this.acceptedKey = acceptedKey;
    this.services = new TestServicesStarter(true, 0);
    ServerBuilder<?> builder =
        Grpc.newServerBuilderForPort(0, TlsServerCredentials.create(cert.toFile(), key.toFile()));
    List<BindableService> all = services.getServices();
    GRPCServerHelper.registerServicesAndHealthChecks(all, builder, List.of(new KeyCheck()));
    this.server = builder.build().start();
  }

  public int port() {
    return server.getPort();
  }

  /** Accepts only {@code key} from now on. */
  public void accept(String key) {
    acceptedKey = key;
  }

  /** The keys of the calls answered, in order. */
  public List<String> acceptedKeys() {
    return List.copyOf(accepted);
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    services.close();
  }

  private final class KeyCheck implements ServerInterceptor {
    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
      String key = acceptedKey;
      if (!("Bearer " + key).equals(headers.get(AUTHORIZATION))) {
        call.close(Status.UNAUTHENTICATED.withDescription("API key refused"), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      accepted.add(key);
      return next.startCall(call, headers);
    }
  }
}
