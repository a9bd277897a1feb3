package com.genace.lifecycle;

import java.util.List;

/**
 * What one sweep found: how many unfinished operations it checked, and those whose workflow was
 * closed or missing (each now in review, with a run waiting for its resolution).
 */
public record SweepReport(int checked, List<String> orphans) {}
