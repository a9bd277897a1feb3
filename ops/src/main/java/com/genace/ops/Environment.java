package com.genace.ops;

import java.util.Map;
import java.util.Optional;

/** The process environment, injectable so that commands can be tested in-process. */
public record Environment(Map<String, String> variables) {

  public static Environment system() {
    return new Environment(System.getenv());
  }

  public Optional<String> get(String name) {
    return Optional.ofNullable(variables.get(name)).filter(value -> !value.isBlank());
  }

  /**
   * @throws ConfigurationException naming the variable when it is not set
   */
  public String require(String name) {
    return get(name).orElseThrow(() -> new ConfigurationException(name + " is not set"));
  }
}
