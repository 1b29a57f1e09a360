#!/usr/bin/env bash
# Every query of the Grafana dashboard is PromQL that Prometheus parses:
# each target's expr (with $job set) goes through `promtool check rules` as
# a recording rule. A query with a typo shows "No data" in Grafana, which
# nobody notices until the night it was needed.
#   dashboard_queries_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$src/deploy/grafana/smsupd-pair.json" "$work/dashboard-rules.yml" <<'PY'
import json, sys
dashboard = json.load(open(sys.argv[1]))
lines = ["groups:", "- name: dashboard", "  rules:"]
count = 0
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        count += 1
        lines.append(f"  - record: dashboard:panel{panel['id']}:{target['refId']}")
        lines.append("    expr: " + json.dumps(target["expr"].replace("$job", "smsupd")))
if count < 20:
    sys.exit(f"only {count} queries found")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
promtool check rules "$work/dashboard-rules.yml"
