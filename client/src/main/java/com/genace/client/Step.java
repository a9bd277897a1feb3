package com.genace.client;

/** Where an operation's course goes next: each step returns the step after it. */
public enum Step {
  DISPATCH,
  REVIEW,
  OBSERVE,
  DELIVER,
  DONE
}
