#!/usr/bin/env bash
# The alert rules as an on-call meets them: every rule has a runbook_url,
# each names a section (heading) of the docs page it points at, and every
# problem common/problems.h marks critical has its case in the promtool
# tests of the generic rule SmsupdCriticalProblem.
#   alert_runbook_links_test.sh SOURCE_DIR
set -euo pipefail
src=$1
rules=$src/deploy/prometheus/smsupd-alerts.yml
tests=$src/deploy/prometheus/smsupd-alerts-test.yml
failed=0
fail() { echo "FAIL $*"; failed=1; }

# GitHub's anchor of a Markdown heading: lower case, punctuation dropped,
# spaces as dashes.
anchors() {
  sed -n 's/^#\{1,6\} \(.*\)$/\1/p' "$1" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

alerts=$(grep -c '^ *- alert: ' "$rules")
links=$(grep -c '^ *runbook_url: ' "$rules")
[ "$alerts" -gt 0 ] || fail "no alert rule in $rules"
[ "$alerts" = "$links" ] || fail "$alerts alert rules but $links runbook_url annotations"
while read -r url; do
  page=${url%%#*}
  anchor=${url#*#}
  [ "$page" != "$url" ] || { fail "runbook_url $url names no section"; continue; }
  [ -f "$src/$page" ] || { fail "runbook_url $url: no $page"; continue; }
  anchors "$src/$page" | grep -qxF "$anchor" || fail "runbook_url $url: no heading with that anchor in $page"
done < <(sed -n 's/^ *runbook_url: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$rules")

# The catalogue's critical IDs: the constants marked Severity::kCritical,
# resolved to their strings.
problems=$src/common/problems.h
critical=0
while read -r constant; do
  id=$(sed -n "s/^inline constexpr char $constant\[\] = \"\([A-Z_]*\)\";/\1/p" "$problems")
  [ -n "$id" ] || { fail "cannot resolve $constant in $problems"; continue; }
  critical=$((critical + 1))
  grep -qF "id: $id}" "$tests" || fail "critical problem $id has no SmsupdCriticalProblem case in $tests"
done < <(sed -n 's/^ *{\(kProblem[A-Za-z]*\), Severity::kCritical,.*/\1/p' "$problems")
[ "$critical" -gt 0 ] || fail "no critical problem found in $problems"

[ "$failed" = 0 ] && echo "ok   $alerts rules link a runbook section; $critical critical problems have a promtool case"
exit "$failed"
