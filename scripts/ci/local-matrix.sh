#!/usr/bin/env bash
# Runs the workflow's matrix-and-merge steps locally, each step as the same script CI runs
# (.github/workflows/conformance.yml), then checks the merged report against the unsharded run.
#
#   ADAPTERS=sqlite SHARDS=4 RUNS=8 bash scripts/ci/local-matrix.sh /tmp/matrix [--subject adapter]
#
# Layout mirrors actions/download-artifact: WORKDIR/shards-<adapter>/shard-<adapter>-<k>/report.json,
# merged into WORKDIR/merged-<adapter>/. Exit 0 when every merged report equals the unsharded run's
# report (apart from wall-clock fields); otherwise the failing step's exit code, or 3 on a difference.
set -euo pipefail

WORKDIR="${1:?usage: local-matrix.sh WORKDIR [run arguments...]}"
shift
ADAPTERS="${ADAPTERS:-sqlite}"
SHARDS="${SHARDS:-4}"
RUNS="${RUNS:-8}"
SEED="${SEED:-20261129}"
CLI="${DURABLE_CONFORMANCE:-npx --no-install durable-conformance}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$WORKDIR"

strip_wall_clock() { sed -E 's/"(startedAt|finishedAt|durationMs)": ("[^"]*"|[0-9.]+)/"\1": 0/' "$1"; }

IFS=',' read -r -a adapters <<< "$ADAPTERS"
for adapter in "${adapters[@]}"; do
  for ((k = 1; k <= SHARDS; k++)); do
    ADAPTER="$adapter" SHARD="$k/$SHARDS" RUNS="$RUNS" SEED="$SEED" OUT="$WORKDIR/shards-$adapter/shard-$adapter-$k" bash "$here/shard.sh" "$@"
  done
  merged=0
  SHARDS_DIR="$WORKDIR/shards-$adapter" OUT="$WORKDIR/merged-$adapter" bash "$here/merge.sh" > "$WORKDIR/merged-$adapter.txt" || merged=$?
  if [[ $merged -eq 2 ]]; then cat "$WORKDIR/merged-$adapter.txt"; echo "merge of $adapter failed" >&2; exit 2; fi
  unsharded=0
  GITHUB_STEP_SUMMARY="" $CLI run --adapter "$adapter" --runs "$RUNS" --seed="$SEED" --out "$WORKDIR/unsharded-$adapter" --quiet "$@" > "$WORKDIR/unsharded-$adapter.txt" || unsharded=$?
  if [[ $merged -ne $unsharded ]] || ! diff <(strip_wall_clock "$WORKDIR/merged-$adapter/report.json") <(strip_wall_clock "$WORKDIR/unsharded-$adapter/report.json") > "$WORKDIR/diff-$adapter.txt"; then
    echo "$adapter: the merged report differs from the unsharded run (exit $merged vs $unsharded; see $WORKDIR/diff-$adapter.txt)" >&2
    exit 3
  fi
  echo "$adapter: $SHARDS shards merged into the unsharded run's report (exit $merged)"
done
