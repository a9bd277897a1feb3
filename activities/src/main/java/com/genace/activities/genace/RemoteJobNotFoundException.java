package com.genace.activities.genace;

/** Genace answered 404: it does not know this generation id (or one of its output URLs). */
public class RemoteJobNotFoundException extends GenaceException {
  public RemoteJobNotFoundException(String message) {
    super(message);
  }
}
