package com.genace.dist.support;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** An environment that remembers every variable asked for by name, set or not. */
public final class RecordingEnvironment extends AbstractMap<String, String> {

  private final Map<String, String> values;
  private final Set<String> asked = new TreeSet<>();

  public RecordingEnvironment(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  public Set<String> asked() {
    return Set.copyOf(asked);
  }

  @Override
  public String get(Object name) {
    asked.add((String) name);
    return values.get(name);
  }

  @Override
  public String getOrDefault(Object name, String fallback) {
    asked.add((String) name);
    return values.getOrDefault(name, fallback);
  }

  @Override
  public boolean containsKey(Object name) {
    asked.add((String) name);
    return values.containsKey(name);
  }

  @Override
  public Set<Entry<String, String>> entrySet() {
    return values.entrySet();
  }
}
