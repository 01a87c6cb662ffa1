#!/usr/bin/env bash
# Runs the same test files several times in a row, the files in another order each run (vitest's shuffle,
# seeded by the run's number; the tests of a file keep their order, as some are steps of one scenario), to
# show that timing-prone tests do not flake. Every run is made, even after a
# failure; the exit status is 1 when any run failed.
#
#   scripts/repeat-tests.sh <runs> <vitest arguments...>
#   scripts/repeat-tests.sh 5 test/kernel/outage.test.ts test/conformance/queue-inline.test.ts
#
# Each run's JSON report is written to test-artifacts/repeat-<n>.json.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: scripts/repeat-tests.sh <runs> <vitest arguments...>}
shift
mkdir -p test-artifacts
failed_runs=0
for run in $(seq 1 "$runs"); do
  report="test-artifacts/repeat-${run}.json"
  started=$(date +%s)
  npx vitest run "$@" --sequence.shuffle.files --sequence.seed="$run" --reporter=dot --reporter=json \
    --outputFile.json="$report" > "test-artifacts/repeat-${run}.log" 2>&1
  status=$?
  counts=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`)
  ' "$report" 2>/dev/null || echo "no report")
  echo "repeat run ${run}/${runs} (seed ${run}): ${counts}, exit ${status}, $(( $(date +%s) - started )) s"
  if [ "$status" != 0 ]; then
    failed_runs=$((failed_runs + 1))
    cat "test-artifacts/repeat-${run}.log"
  fi
done
echo "repeat: ${runs} runs, ${failed_runs} failed"
[ "$failed_runs" = 0 ]
