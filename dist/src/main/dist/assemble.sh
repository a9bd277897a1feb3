#!/usr/bin/env bash
# Assembles the self-contained distribution (run by `mvn -Pdist package`, see dist/pom.xml):
#
#   1. jdeps lists the JDK modules the application's jars use;
#   2. jlink makes a runtime of only those (plus the ones loaded by name, which jdeps cannot see);
#   3. the runtime, the jars and bin/genace go into OUT, then OUT.tar.gz.
#
# The runtime is native code of the JDK that runs the build, so the archive is for this machine's
# platform only.
#
# Usage: assemble.sh JAVA_HOME APP_LIB BIN_DIR OUT EXTRA_MODULES
set -euo pipefail

java_home="$1" app_lib="$2" bin_dir="$3" out="$4" extra_modules="$5"
name="$(basename "$out")"
platform="$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)"
[[ "$name" == *"-$platform" ]] || {
  echo "assemble: this machine is $platform: it cannot build $name (jlink copies its own JDK)" >&2
  exit 1
}
for tool in jdeps jlink; do
  [[ -x "$java_home/bin/$tool" ]] || { echo "assemble: $java_home/bin/$tool is missing: a full JDK 17 is needed" >&2; exit 1; }
done
[[ -d "$java_home/jmods" ]] || { echo "assemble: $java_home/jmods is missing (Debian: apt-get install openjdk-17-jdk-headless)" >&2; exit 1; }

# Multi-release jars are read as Java 17 sees them; references to optional libraries that are not
# on the class path (a logging back end nobody uses, Kotlin, ...) are not modules we need.
modules="$("$java_home/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$app_lib"/*.jar)"
modules="$modules,$extra_modules"
echo "assemble: runtime modules: $modules"

rm -rf "$out" "$out.tar.gz"
mkdir -p "$out"
"$java_home/bin/jlink" --add-modules "$modules" --output "$out/runtime" \
  --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive
cp -r "$app_lib" "$out/lib"
mkdir "$out/bin"
cp "$bin_dir"/* "$out/bin/"
chmod 755 "$out/bin"/*

tar -C "$(dirname "$out")" --sort=name --owner=0 --group=0 --numeric-owner -czf "$out.tar.gz" "$name"
echo "assemble: $out.tar.gz ($(du -h "$out.tar.gz" | cut -f1); unpacked $(du -sh "$out" | cut -f1))"
