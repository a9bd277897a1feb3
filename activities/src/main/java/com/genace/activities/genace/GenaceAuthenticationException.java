package com.genace.activities.genace;

/** Genace answered 401 or 403: the API key is missing, wrong or lacks permission. */
public class GenaceAuthenticationException extends GenaceException {
  public GenaceAuthenticationException(String message) {
    super(message);
  }
}
