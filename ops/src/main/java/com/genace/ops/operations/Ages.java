package com.genace.ops.operations;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Ages as operators type and read them: {@code 90s}, {@code 30m}, {@code 1h}, {@code 2d}. */
final class Ages {

  private static final Pattern AGE = Pattern.compile("([0-9]{1,9})([smhd])");

  private Ages() {}

  /**
   * The {@code --older-than} converter: a count and a unit, {@code s}, {@code m}, {@code h} or
   * {@code d}.
   */
  static final class Converter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Matcher m = AGE.matcher(value.trim());
      if (!m.matches()) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not an age such as 90s, 30m, 1h or 2d");
      }
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
  }

  /** The two largest units of an age, e.g. {@code 3h12m} or {@code 45s}. */
  static String format(Duration age) {
    long seconds = Math.max(0, age.truncatedTo(ChronoUnit.SECONDS).getSeconds());
    long days = seconds / 86_400;
    long hours = seconds % 86_400 / 3600;
    long minutes = seconds % 3600 / 60;
    if (days > 0) {
      return days + "d" + (hours > 0 ? hours + "h" : "");
    }
    if (hours > 0) {
      return hours + "h" + (minutes > 0 ? minutes + "m" : "");
    }
    return minutes > 0
        ? minutes + "m" + (seconds % 60 > 0 ? seconds % 60 + "s" : "")
        : seconds + "s";
  }
}
