package com.genace.activities.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines one logger writes while this is open, as logback recorded them. */
public final class CapturedLogs implements AutoCloseable {

  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private CapturedLogs(String loggerName) {
    this.logger = (Logger) LoggerFactory.getLogger(loggerName);
    appender.start();
    logger.addAppender(appender);
  }

  public static CapturedLogs of(String loggerName) {
    return new CapturedLogs(loggerName);
  }

  /** The formatted messages logged at {@code level}, in order. */
  public List<String> at(Level level) {
    return appender.list.stream()
        .filter(event -> event.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
