#!/usr/bin/env bash
# The merge job: joins every shard report under SHARDS_DIR (one folder per downloaded artifact) into
# the report the unsharded run writes, in OUT; appends it to $GITHUB_STEP_SUMMARY when set.
#
#   SHARDS_DIR=shards OUT=merged bash scripts/ci/merge.sh
#
# Exit code as `durable-conformance run`: 0 every requirement passes or does not apply, 1 a requirement
# failed or was not shown to hold, 2 a usage or adapter error (a missing or mismatched shard included).
set -euo pipefail

SHARDS_DIR="${SHARDS_DIR:-shards}"
OUT="${OUT:-merged}"
CLI="${DURABLE_CONFORMANCE:-npx --no-install durable-conformance}"

mapfile -t reports < <(find "$SHARDS_DIR" -name report.json -type f | LC_ALL=C sort)
if [[ ${#reports[@]} -eq 0 ]]; then
  echo "no shard report.json under $SHARDS_DIR" >&2
  exit 2
fi
exec $CLI merge-reports --out "$OUT" "${reports[@]}"
