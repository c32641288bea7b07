#!/usr/bin/env bash
# Runs the test suite N times on a clean clone of HEAD, the way a new user gets it, and reports
# how many runs failed and which tests failed in each: flakes are bugs, and this finds them.
#
#   scripts/repeat-tests.sh [N] [-- <vitest arguments>]
#
# N defaults to 20. Arguments after `--` go to every `npm test` run (a test selection, e.g.
# `scripts/repeat-tests.sh 3 -- test/internal`). The clone is HEAD as committed (uncommitted
# changes are not in it), installed with `npm ci`. Each run's output and JSON report stay in the
# printed log directory; the exit status is 1 when any run failed.
set -euo pipefail

runs=20
if [[ $# -gt 0 && $1 != -- ]]; then runs=$1; shift; fi
if [[ $# -gt 0 && $1 == -- ]]; then shift; fi
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
  echo "repeat-tests: N must be a positive integer (got \"$runs\"). Usage: scripts/repeat-tests.sh [N] [-- <vitest arguments>]" >&2
  exit 2
fi

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
head=$(git -C "$root" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/rxslice-repeat-XXXXXX")
logs="$work/logs"
mkdir -p "$logs"
echo "repeat-tests: $runs run(s) of npm test${*:+ -- $*} on a clone of ${head:0:12} in $work/repo"

git clone --quiet --no-checkout "$root" "$work/repo"
git -C "$work/repo" checkout --quiet --detach "$head"
(cd "$work/repo" && npm ci --no-audit --no-fund >"$logs/npm-ci.log" 2>&1) || {
  echo "repeat-tests: npm ci failed; see $logs/npm-ci.log" >&2
  exit 1
}

failed_runs=0
: >"$logs/failures.txt"
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s)
  status=0
  (cd "$work/repo" && npm test -- --reporter=default --reporter=json --outputFile.json="$logs/run-$i.json" "$@") >"$logs/run-$i.log" 2>&1 || status=$?
  seconds=$(($(date +%s) - start))
  # Failing tests (file > describe > test), and files that failed outside any test (a suite error).
  names=$(node -e '
    const fs = require("node:fs");
    let report;
    try { report = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch { console.log("(no JSON report: see the run log)"); process.exit(0); }
    const rel = (f) => require("node:path").relative(process.argv[2], f);
    for (const file of report.testResults ?? []) {
      const failed = (file.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const t of failed) console.log(`${rel(file.name)} > ${t.fullName}`);
      if (failed.length === 0 && file.status === "failed") console.log(`${rel(file.name)} (the file failed: ${String(file.message ?? "").split("\n")[0]})`);
    }' "$logs/run-$i.json" "$work/repo" 2>/dev/null || true)
  if [[ $status -eq 0 ]]; then
    echo "run $i/$runs: pass (${seconds} s)"
  else
    failed_runs=$((failed_runs + 1))
    echo "run $i/$runs: FAIL, exit $status (${seconds} s)"
    [[ -n $names ]] && printf '%s\n' "$names" | sed 's/^/    /'
    [[ -n $names ]] && printf '%s\n' "$names" >>"$logs/failures.txt"
  fi
done

echo
echo "repeat-tests: $failed_runs of $runs run(s) failed on ${head:0:12}${*:+ (npm test -- $*)}"
if [[ -s $logs/failures.txt ]]; then
  echo "failing tests (runs in which each failed):"
  sort "$logs/failures.txt" | uniq -c | sort -rn | sed 's/^/  /'
fi
echo "logs: $logs (run-N.log, run-N.json); remove $work when done"
[[ $failed_runs -eq 0 ]]
