package com.genace.delivery;

/** One delivered output: its deterministic key in the store, size, digest and content type. */
public record DeliveredArtifact(String key, long bytes, String sha256, String contentType) {}
