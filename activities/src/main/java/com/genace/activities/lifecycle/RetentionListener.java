package com.genace.activities.lifecycle;

import com.genace.workflows.lifecycle.RetentionReport;

/** Told what each retention pass run by this process did (the worker shows it on /status). */
@FunctionalInterface
public interface RetentionListener {

  RetentionListener NONE = report -> {};

  void retentionPassEnded(RetentionReport report);
}
