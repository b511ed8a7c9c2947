#!/usr/bin/env bash
# Times `profparse history` on 1,000 generated TinyProfiler job logs of 100
# timers each, with two steps (docs/PERFORMANCE.md, "history"). Usage:
#   bench/history.sh [BINARY] [DIR]
# BINARY defaults to target/release/profparse (build it first); DIR to
# ${TMPDIR:-/tmp}/profparse-history-bench. Rounds: PROFPARSE_BENCH_RUNS (5).
set -euo pipefail
bin=${1:-target/release/profparse}
dir=${2:-${TMPDIR:-/tmp}/profparse-history-bench}
runs=${PROFPARSE_BENCH_RUNS:-5}
mkdir -p "$dir"
for i in $(seq 1 1000); do
    f=$(printf '%s/run%04d.log' "$dir" "$i")
    [ -f "$f" ] && continue
    steps=()
    [ "$i" -gt 400 ] && steps+=(--slower 7:1.10)
    [ "$i" -gt 700 ] && steps+=(--slower 42:0.85)
    "$bin" synth tinyprofiler "$f" --timers 100 --noise 0.02 --seed "$i" "${steps[@]}"
done
# shellcheck source=bench/best_of.sh
. "$(dirname "$0")/best_of.sh"
best_of "history 1000 runs, 100 timers" "$runs" "$bin" -- history "$dir" --format json
