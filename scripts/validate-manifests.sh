#!/usr/bin/env bash
# Validates deploy/kubernetes/*.yaml against the Kubernetes API schemas, offline: the schemas ship
# inside kubernetes-validate (PyPI), installed here into a virtualenv of its own. Strict, so an
# unknown or misspelt field fails too. Checked against the oldest and the newest Kubernetes minor
# version the manifests support.
# Usage: scripts/validate-manifests.sh [VENV]   (default ~/.cache/genace/kubernetes-validate-VERSION)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION=1.37.0
VENV="${1:-$HOME/.cache/genace/kubernetes-validate-$VERSION}"
KUBERNETES_VERSIONS=(1.29.0 1.37.0)

if [[ ! -x "$VENV/bin/kubernetes-validate" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "kubernetes-validate==$VERSION"
fi

passed=0 failed=0
for version in "${KUBERNETES_VERSIONS[@]}"; do
  for manifest in "$ROOT"/deploy/kubernetes/*.yaml; do
    if "$VENV/bin/kubernetes-validate" --strict --quiet -k "$version" "$manifest"; then
      passed=$((passed + 1))
    else
      echo "== validate: $(basename "$manifest") is not a valid Kubernetes $version object" >&2
      failed=$((failed + 1))
    fi
  done
done
echo "validate: $passed passed, $failed failed"
[[ "$failed" == 0 ]]
