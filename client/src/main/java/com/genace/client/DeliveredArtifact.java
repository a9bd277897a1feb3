package com.genace.client;

/**
 * One delivered output: its deterministic key in the store, its address there ({@code file:///...}
 * or {@code s3://bucket/key}), size, SHA-256 and content type.
 */
public record DeliveredArtifact(
    String key, String uri, long bytes, String sha256, String contentType) {}
