#!/usr/bin/env bash
# One cell of the conformance matrix: shard K/N of every property's scenarios on one adapter.
#
#   ADAPTER=sqlite SHARD=2/4 RUNS=60 SEED=20261129 OUT=shard-report bash scripts/ci/shard.sh
#
# Writes $OUT/report.json (with the shard section merge-reports needs), report.md, report.html and
# junit.xml. Exits 0 whenever the shard wrote its report, whatever it found: the merge job decides the
# verdict over all shards. Exits with the run's code (2) when no report was written (a usage error, an
# adapter module that cannot load). Extra arguments go to `run` (e.g. --subject alarms).
set -euo pipefail

: "${ADAPTER:?set ADAPTER (sqlite, pglite, postgres, do-sqlite or a module path)}"
: "${SHARD:?set SHARD as K/N, e.g. 2/4}"
RUNS="${RUNS:-60}"
SEED="${SEED:-20261129}"
OUT="${OUT:-shard-report}"
CLI="${DURABLE_CONFORMANCE:-npx --no-install durable-conformance}"

code=0
# Only the merged report goes to the job summary.
GITHUB_STEP_SUMMARY="" $CLI run --adapter "$ADAPTER" --shard "$SHARD" --runs "$RUNS" --seed="$SEED" --out "$OUT" --quiet "$@" || code=$?
if [[ ! -f "$OUT/report.json" ]]; then
  echo "shard $SHARD on $ADAPTER wrote no report (exit $code)" >&2
  exit "$code"
fi
echo "shard $SHARD on $ADAPTER: exit $code, report in $OUT"
