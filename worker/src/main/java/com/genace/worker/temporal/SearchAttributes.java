package com.genace.worker.temporal;

import com.genace.client.GenerationSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Registers the workflow's search attributes on a namespace through the operator service. The
 * workflow upserts them on every phase change, so a server that does not know them fails the
 * workflow task.
 */
public final class SearchAttributes {

  /** Name and type of every attribute {@link GenerationSearchAttributes} declares. */
  public static final Map<String, IndexedValueType> ALL = all();

  private SearchAttributes() {}

  /** Adds those that are missing; already registered ones are left as they are. */
  public static void register(WorkflowServiceStubs stubs, String namespace) {
    OperatorServiceStubs operator = operator(stubs);
    // The Java test server does not list attributes: add them all.
    Map<String, IndexedValueType> missing = missing(operator, namespace).orElse(ALL);
    if (!missing.isEmpty()) {
      operator
          .blockingStub()
          .addSearchAttributes(
              AddSearchAttributesRequest.newBuilder()
                  .setNamespace(namespace)
                  .putAllSearchAttributes(missing)
                  .build());
    }
  }

  /**
   * Those of {@link #ALL} the namespace does not have, or empty when the server cannot list them
   * (the Java test server).
   */
  public static Optional<Map<String, IndexedValueType>> missing(
      WorkflowServiceStubs stubs, String namespace) {
    return missing(operator(stubs), namespace);
  }

  /** The Temporal CLI command that creates {@code attributes} on {@code namespace}. */
  public static String createCommand(Map<String, IndexedValueType> attributes, String namespace) {
    return "temporal operator search-attribute create --namespace "
        + namespace
        + attributes.entrySet().stream()
            .map(a -> " --name " + a.getKey() + " --type " + typeName(a.getValue()))
            .collect(Collectors.joining());
  }

  /** {@code INDEXED_VALUE_TYPE_KEYWORD} as the CLI spells it: {@code Keyword}. */
  public static String typeName(IndexedValueType type) {
    String name = type.name().substring("INDEXED_VALUE_TYPE_".length()).toLowerCase();
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static Optional<Map<String, IndexedValueType>> missing(
      OperatorServiceStubs operator, String namespace) {
    Map<String, IndexedValueType> missing = new LinkedHashMap<>(ALL);
    try {
      missing
          .keySet()
          .removeAll(
              operator
                  .blockingStub()
                  .listSearchAttributes(
                      ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
                  .getCustomAttributesMap()
                  .keySet());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
      return Optional.empty();
    }
    return Optional.of(missing);
  }

  /** On the same channel, with the same credentials (an API key travels as metadata). */
  private static OperatorServiceStubs operator(WorkflowServiceStubs stubs) {
    OperatorServiceStubsOptions.Builder options =
        OperatorServiceStubsOptions.newBuilder().setChannel(stubs.getRawChannel());
    if (stubs.getOptions().getGrpcMetadataProviders() != null) {
      options.setGrpcMetadataProviders(stubs.getOptions().getGrpcMetadataProviders());
    }
    return OperatorServiceStubs.newServiceStubs(options.validateAndBuildWithDefaults());
  }

  private static Map<String, IndexedValueType> all() {
    Map<String, IndexedValueType> all = new LinkedHashMap<>();
    all.put(
        GenerationSearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    all.put(
        GenerationSearchAttributes.REMOTE_JOB_ID.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    all.put(
        GenerationSearchAttributes.NEEDS_REVIEW.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_BOOL);
    all.put(GenerationSearchAttributes.CREDITS.getName(), IndexedValueType.INDEXED_VALUE_TYPE_INT);
    return java.util.Collections.unmodifiableMap(all);
  }
}
