package com.genace.client;

import java.nio.file.Path;
import java.util.List;

/**
 * The Genace API as the worker uses it. Implementations never retry a create on their own and never
 * put the API key in an exception message or a log line.
 */
public interface GenaceClient {

  /**
   * Asks Genace to create a paid render. Never throws for network or HTTP outcomes: every such
   * outcome is classified into a {@link CreateOutcome}. The request is sent at most once.
   */
  CreateOutcome create(CreateRequest request);

  /**
   * Reads a job's current snapshot; safe to retry.
   *
   * @throws RemoteJobNotFoundException on 404
   * @throws GenaceRateLimitedException on 429
   * @throws GenaceAuthenticationException on 401 or 403
   * @throws GenaceUnavailableException on 5xx, timeouts and I/O errors
   * @throws MalformedResponseException when the body breaks the contract, including an id other
   *     than the one requested
   */
  JobSnapshot get(String remoteJobId);

  /**
   * Lists model ids. Free of charge: useful to check connectivity and the API key.
   *
   * @throws GenaceException as for {@link #get(String)}
   */
  List<String> listModels();

  /**
   * Streams one output's bytes to {@code target}, replacing it. The bytes are checked against the
   * snapshot's size and SHA-256 first, so {@code target} only ever appears complete and verified;
   * on any failure it is left as it was.
   *
   * @throws MalformedResponseException when size or SHA-256 differ from the snapshot
   * @throws GenaceException as for {@link #get(String)}, for the HTTP exchange
   * @throws java.io.UncheckedIOException when writing locally fails
   */
  void download(JobOutput output, Path target);
}
