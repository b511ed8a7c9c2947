#!/usr/bin/env bash
# Runs fuzz targets one after another, one fuzzer process at a time.
# Usage: fuzz/run.sh SECONDS [TARGET...]   (default: every target)
# Logs: fuzz/logs/<target>.log; crash inputs: fuzz/artifacts/<target>/.
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:?usage: run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(blprof_header base_block trace_block comm_block regions filter_file tlog timer_tree database tinyprofiler cli)
mkdir -p logs
export RAYON_NUM_THREADS=1
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    rm -f fuzz-0.log
    echo "== $t: $(date -u +%H:%M:%S) start, $secs s"
    # -jobs=1 -workers=1: one fuzzing child, whose output libFuzzer puts in fuzz-0.log.
    # The cli target's reports go to stdout and stderr: closed (mask 3).
    extra=()
    # Its seeds are one byte (a command line); the patches need room from
    # the start (-len_control=0), since it runs only a few inputs a second.
    [ "$t" = cli ] && extra=(-close_fd_mask=3 -max_len=4096 -len_control=0)
    # timer_tree nests one level per byte: long inputs reach deep trees.
    [ "$t" = timer_tree ] && extra=(-max_len=100000)
    cargo +nightly fuzz run "$t" -- -max_total_time="$secs" -jobs=1 -workers=1 \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${extra[@]}" > "logs/$t.log" 2>&1
    rc=$?
    [ -f fuzz-0.log ] && cat fuzz-0.log >> "logs/$t.log" && rm -f fuzz-0.log
    echo "== $t: $(date -u +%H:%M:%S) exit $rc; $(grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec)|^#[0-9]+.*DONE|^SUMMARY|^==[0-9]+== ERROR' "logs/$t.log" | tail -4 | tr '\n' ' ')"
done
