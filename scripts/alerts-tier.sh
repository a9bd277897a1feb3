#!/usr/bin/env bash
# The alert rules and the dashboard (deploy/prometheus, deploy/grafana; docs/runbook.md):
#   * promtool check rules and promtool test rules (each alert fires in one case, not in another);
#   * the Grafana dashboard is valid JSON, each panel's expression parses (promtool, through a
#     generated file of recording rules) and every metric that the dashboard or the rules read is
#     one the worker exports: a genace_* name registered in src/main (its counter suffix _total
#     aside), or a temporal_* name of the SDK that docs/observability.md lists.
# promtool comes from Debian's `prometheus` package (installed here when missing, as root: the
# fastest way onto a fresh machine; it stays installed for the next run).
# Usage: scripts/alerts-tier.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=alerts
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

RULES="$ROOT/deploy/prometheus/genace-alerts.yml"
RULE_TESTS="$ROOT/deploy/prometheus/genace-alerts.test.yml"
DASHBOARD="$ROOT/deploy/grafana/genace.json"

if ! command -v promtool >/dev/null 2>&1; then
  [[ "$(id -u)" == 0 ]] || fail "promtool is missing: apt-get install prometheus (as root), or put promtool on PATH"
  log "installing promtool (Debian's prometheus package)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null; } \
    || fail "apt-get install prometheus"
fi
log "$(promtool --version 2>&1 | head -n 1)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

promtool check rules "$RULES" || fail "promtool check rules $RULES"
pass "promtool check rules: $(grep -c '^ *- alert:' "$RULES") alerts"
promtool test rules "$RULE_TESTS" || fail "promtool test rules $RULE_TESTS"
pass "promtool test rules: every alert fires in a fleet in trouble and stays silent otherwise"

python3 - "$DASHBOARD" "$WORK/dashboard-rules.yml" <<'PY' || fail "the dashboard $DASHBOARD is no valid dashboard JSON"
import json, sys
dashboard = json.load(open(sys.argv[1]))
rules = []
for panel in dashboard["panels"]:
    targets = panel.get("targets") or []
    if not targets:
        sys.exit(f"panel {panel.get('title')!r} has no query")
    for target in targets:
        rules.append((f"genace_dashboard:panel_{panel['id']}_{target['refId']}", target["expr"]))
with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for name, expr in rules:
        out.write(f"      - record: {name}\n        expr: {json.dumps(expr)}\n")
print(f"== alerts: {len(dashboard['panels'])} panels, {len(rules)} queries")
PY
promtool check rules "$WORK/dashboard-rules.yml" >/dev/null || fail "a dashboard query does not parse"
pass "every query of the dashboard parses"

python3 - "$ROOT" "$RULES" "$DASHBOARD" <<'PY' || fail "the rules or the dashboard read a metric the worker does not export"
import glob, json, re, sys
root, rules, dashboard = sys.argv[1:4]
texts = [open(rules).read()]
texts += [t["expr"] for p in json.load(open(dashboard))["panels"] for t in p["targets"]]
names = set()
for text in texts:
    names.update(re.findall(r"\b((?:genace|temporal)_[a-z0-9_]+)\b", text))
sources = "".join(open(f).read() for f in glob.glob(root + "/*/src/main/java/**/*.java", recursive=True))
observability = open(root + "/docs/observability.md").read()
missing = []
for name in sorted(names):
    if name.startswith("genace_"):
        base = re.sub(r"_total$", "", name)
        if f'"{base}"' not in sources:
            missing.append(name)
    elif f"`{name}" not in observability:
        missing.append(name)
if missing:
    sys.exit("== alerts: not exported: " + ", ".join(missing))
print(f"== alerts: {len(names)} metric names, each exported: " + ", ".join(sorted(names)))
PY
pass "the rules and the dashboard read only metrics the worker exports"

echo "$PASSED passed, 0 failed"
