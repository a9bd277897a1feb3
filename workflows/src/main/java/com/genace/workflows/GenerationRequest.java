package com.genace.workflows;

/** What an application asks for: an operation id of its own, a model and a JSON input object. */
public record GenerationRequest(String operationId, String model, String inputJson) {}
