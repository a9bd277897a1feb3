package com.genace.ops;

/** A missing or malformed setting; the message names the variable and never shows a secret. */
public class ConfigurationException extends RuntimeException {

  public ConfigurationException(String message) {
    super(message);
  }
}
