package com.genace.activities.genace;

import java.io.InputStream;
import java.util.List;
import java.util.Optional;

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
   * Reads a job with its {@code metadata.operation_id} and creation time, for a review's evidence.
   *
   * @return empty when Genace answers 404
   * @throws GenaceException as for {@link #get(String)}, 404 aside
   */
  Optional<RemoteJob> lookUp(String remoteJobId);

  /**
   * Genace's optional search: the jobs whose metadata carries {@code operationId}, newest first. It
   * may lag creation by a few seconds, so an absent job is no proof that no POST arrived.
   *
   * @return empty when this Genace does not offer the search (the route answers 404, 405 or 501)
   * @throws GenaceException as for {@link #get(String)}
   */
  Optional<List<RemoteJob>> search(String operationId);

  /**
   * Lists model ids. Free of charge: useful to check connectivity and the API key.
   *
   * @throws GenaceException as for {@link #get(String)}
   */
  List<String> listModels();

  /**
   * Opens one output's bytes as a stream, which the caller reads and closes. The bytes are not
   * checked here: the artifact store checks size and SHA-256 against the snapshot before it
   * publishes anything. A failure while reading is an {@link java.io.IOException} from the stream.
   *
   * @throws RemoteJobNotFoundException when the output URL answers 404
   * @throws GenaceException as for {@link #get(String)}, for the HTTP exchange
   */
  InputStream openOutput(JobOutput output);
}
