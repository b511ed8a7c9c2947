#!/usr/bin/env bash
# Times `profparse regress` on 8 vs 8 generated TinyProfiler job logs of
# 1,000 timers each (docs/PERFORMANCE.md, "regress"). Usage:
#   bench/regress.sh [BINARY] [DIR]
# BINARY defaults to target/release/profparse (build it first); DIR to
# ${TMPDIR:-/tmp}/profparse-regress-bench. Rounds: PROFPARSE_BENCH_RUNS (5).
set -euo pipefail
bin=${1:-target/release/profparse}
dir=${2:-${TMPDIR:-/tmp}/profparse-regress-bench}
runs=${PROFPARSE_BENCH_RUNS:-5}
mkdir -p "$dir"
for i in 1 2 3 4 5 6 7 8; do
    [ -f "$dir/base-$i.log" ] || "$bin" synth tinyprofiler "$dir/base-$i.log" --timers 1000 --seed "$i"
    [ -f "$dir/new-$i.log" ] || "$bin" synth tinyprofiler "$dir/new-$i.log" --timers 1000 \
        --seed "$((100 + i))" --slower 7:1.05 --slower 500:0.9
done
# shellcheck source=bench/best_of.sh
. "$(dirname "$0")/best_of.sh"
best_of "regress 8 vs 8 runs, 1000 timers" "$runs" "$bin" -- regress --base "$dir"/base-*.log --new "$dir"/new-*.log --format json
