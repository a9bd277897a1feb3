package com.genace.workflows.delivery;

import com.genace.client.DeliveredArtifact;
import java.util.List;

/** The manifest of a delivery: one entry per output, and how many were copied this time. */
public record DeliveryResult(List<DeliveredArtifact> artifacts, int copied) {}
