package com.genace.ops.temporal;

import com.genace.workflows.GenerationSearchAttributes;
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
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setChannel(stubs.getRawChannel())
                .validateAndBuildWithDefaults());
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
      // The Java test server does not list attributes: add them all.
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
    }
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
    return java.util.Collections.unmodifiableMap(all);
  }
}
