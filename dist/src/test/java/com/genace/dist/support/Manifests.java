package com.genace.dist.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The Kubernetes objects in deploy/kubernetes, read as the API server would see them. */
public record Manifests(List<JsonNode> all) {

  /** Relative to the dist module, where Maven runs its tests. */
  public static final Path DIRECTORY = Path.of("..", "deploy", "kubernetes");

  public static Manifests load(Path directory) {
    YAMLMapper yaml = new YAMLMapper();
    List<JsonNode> objects = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        try (MappingIterator<JsonNode> documents =
            yaml.readerFor(JsonNode.class).readValues(file.toFile())) {
          documents.forEachRemaining(
              document -> {
                if (!document.isEmpty()) {
                  objects.add(document);
                }
              });
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Manifests(List.copyOf(objects));
  }

  public JsonNode get(String kind, String name) {
    return all.stream()
        .filter(o -> o.path("kind").asText().equals(kind))
        .filter(o -> o.at("/metadata/name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " named " + name));
  }

  /** The containers of a workload (Deployment, Job...), none for other kinds. */
  public List<JsonNode> containers(JsonNode object) {
    List<JsonNode> containers = new ArrayList<>();
    object.at("/spec/template/spec/initContainers").forEach(containers::add);
    object.at("/spec/template/spec/containers").forEach(containers::add);
    return containers;
  }

  public JsonNode container(JsonNode object, String name) {
    return containers(object).stream()
        .filter(c -> c.path("name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container named " + name));
  }

  public List<String> args(JsonNode container) {
    List<String> args = new ArrayList<>();
    container.path("command").forEach(a -> args.add(a.asText()));
    container.path("args").forEach(a -> args.add(a.asText()));
    return args;
  }

  public JsonNode variable(JsonNode container, String name) {
    for (JsonNode variable : container.path("env")) {
      if (variable.path("name").asText().equals(name)) {
        return variable;
      }
    }
    throw new AssertionError("the container " + container.path("name") + " does not set " + name);
  }

  /** The names of the variables the container gets: its env and its ConfigMaps' keys. */
  public List<String> variableNames(JsonNode container) {
    List<String> names = new ArrayList<>();
    container.path("env").forEach(v -> names.add(v.path("name").asText()));
    for (JsonNode source : container.path("envFrom")) {
      JsonNode configMap = get("ConfigMap", source.at("/configMapRef/name").asText());
      configMap.path("data").fieldNames().forEachRemaining(names::add);
    }
    return names;
  }

  /**
   * The container's environment as its pod would see it: ConfigMap keys, literal values, the pod's
   * name for a field reference, and the given stand-ins for the Secret's keys (an optional key
   * without a stand-in is left out, as Kubernetes does when the Secret lacks it).
   */
  public Map<String, String> environment(
      JsonNode workload, JsonNode container, Map<String, String> secretValues) {
    Map<String, String> env = new HashMap<>();
    for (JsonNode source : container.path("envFrom")) {
      JsonNode configMap = get("ConfigMap", source.at("/configMapRef/name").asText());
      configMap
          .path("data")
          .fields()
          .forEachRemaining(f -> env.put(f.getKey(), f.getValue().asText()));
    }
    for (JsonNode variable : container.path("env")) {
      String name = variable.path("name").asText();
      if (variable.has("value")) {
        env.put(name, variable.path("value").asText());
      } else if (variable.at("/valueFrom/fieldRef").isObject()) {
        env.put(name, workload.at("/metadata/name").asText() + "-5d8f9c7b6-x2x4k");
      } else if (variable.at("/valueFrom/secretKeyRef").isObject()) {
        JsonNode ref = variable.at("/valueFrom/secretKeyRef");
        String value = secretValues.get(ref.path("key").asText());
        if (value == null && !ref.path("optional").asBoolean(false)) {
          throw new AssertionError("no stand-in for the secret key " + ref.path("key"));
        }
        if (value != null) {
          env.put(name, value);
        }
      } else {
        throw new AssertionError(name + ": a kind of value this test does not know");
      }
    }
    return env;
  }
}
