package com.genace.worker.telemetry;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import org.slf4j.LoggerFactory;

/**
 * Switches logback to {@value #RESOURCE}: one JSON object per line on standard output, with the log
 * context's fields (see {@link ActivityLogContext}) as top-level keys. Done programmatically
 * because the launcher has already configured logback for the CLI by the time the worker starts.
 */
public final class JsonLogging {

  public static final String RESOURCE = "logback-worker.xml";

  /** Logback's own property: an operator's configuration file wins over ours. */
  static final String CONFIGURATION_FILE_PROPERTY = "logback.configurationFile";

  private JsonLogging() {}

  /**
   * @return false, changing nothing, when an operator named a logback configuration file or slf4j
   *     is not bound to logback
   */
  public static boolean install() {
    if (System.getProperty(CONFIGURATION_FILE_PROPERTY) != null
        || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return false;
    }
    URL resource = JsonLogging.class.getClassLoader().getResource(RESOURCE);
    if (resource == null) {
      throw new IllegalStateException(RESOURCE + " is missing from the class path");
    }
    context.reset();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    try {
      configurator.doConfigure(resource);
    } catch (JoranException e) {
      throw new IllegalStateException("could not configure logging from " + RESOURCE, e);
    }
    return true;
  }
}
