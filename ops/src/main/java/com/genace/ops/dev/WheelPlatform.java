package com.genace.ops.dev;

import java.util.Locale;

/**
 * The machine a wheel must run on, matched against the platform tags in a wheel's file name (PEP
 * 425), for example {@code manylinux2014_x86_64.musllinux_1_1_x86_64} or {@code macosx_11_0_arm64}.
 *
 * @param os {@code linux}, {@code macos} or another system's name as Java reports it
 * @param arch the machine's architecture as wheels name it ({@code x86_64}, {@code aarch64})
 */
record WheelPlatform(String os, String arch) {

  static WheelPlatform current() {
    return of(System.getProperty("os.name"), System.getProperty("os.arch"));
  }

  /** From Java's {@code os.name} and {@code os.arch}. */
  static WheelPlatform of(String osName, String osArch) {
    String name = osName.toLowerCase(Locale.ROOT);
    String os = name.startsWith("linux") ? "linux" : name.startsWith("mac") ? "macos" : name;
    String arch =
        switch (osArch.toLowerCase(Locale.ROOT)) {
          case "amd64", "x86_64" -> "x86_64";
          case "aarch64", "arm64" -> "aarch64";
          default -> osArch.toLowerCase(Locale.ROOT);
        };
    return new WheelPlatform(os, arch);
  }

  /** Whether one of the wheel's platform tags runs here. */
  boolean accepts(String wheelFileName) {
    if (!wheelFileName.endsWith(".whl")) {
      return false;
    }
    String stem = wheelFileName.substring(0, wheelFileName.length() - ".whl".length());
    String platformTags = stem.substring(stem.lastIndexOf('-') + 1);
    for (String tag : platformTags.split("\\.")) {
      if (runs(tag)) {
        return true;
      }
    }
    return false;
  }

  private boolean runs(String tag) {
    return switch (os) {
      case "linux" ->
          (tag.startsWith("manylinux") || tag.startsWith("linux_")) && tag.endsWith("_" + arch);
      case "macos" ->
          tag.startsWith("macosx_")
              && (tag.endsWith("_" + (arch.equals("aarch64") ? "arm64" : arch))
                  || tag.endsWith("_universal2"));
      default -> false;
    };
  }

  @Override
  public String toString() {
    return os + "/" + arch;
  }
}
