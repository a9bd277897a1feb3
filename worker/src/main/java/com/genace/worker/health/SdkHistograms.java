package com.genace.worker.health;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;
import java.util.List;

/**
 * Keeps the Temporal SDK's latency histograms to a few buckets: the SDK asks Micrometer for a
 * percentile histogram (about 70 buckets per series), which would make a scrape of one worker
 * hundreds of kilobytes. Timers that ask for a histogram get the configured buckets instead ({@code
 * GENACE_METRICS_BUCKETS}); other meters that ask for one keep count and sum only.
 */
final class SdkHistograms implements MeterFilter {

  private final double[] bucketNanos;

  SdkHistograms(List<Duration> buckets) {
    this.bucketNanos = buckets.stream().mapToDouble(Duration::toNanos).sorted().toArray();
  }

  @Override
  public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
    if (!Boolean.TRUE.equals(config.isPercentileHistogram())) {
      return config;
    }
    DistributionStatisticConfig.Builder limited =
        DistributionStatisticConfig.builder().percentilesHistogram(false);
    if (id.getType() == Meter.Type.TIMER && bucketNanos.length > 0) {
      limited.serviceLevelObjectives(bucketNanos);
    }
    return limited.build().merge(config);
  }
}
