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
time_one() { # prints the wall seconds of one run
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" "$@" history "$dir" --format json > /dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
for jobs in 1 2; do
    times=()
    for _ in $(seq "$runs"); do times+=("$(time_one -j "$jobs")"); done
    sorted=$(printf '%s\n' "${times[@]}" | sort -n)
    echo "history 1000 runs, 100 timers, -j $jobs: best $(echo "$sorted" | head -1) s," \
        "median $(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p") s over $runs runs"
done
