#!/usr/bin/env bash
# Generates a synthetic bl_prof database and times every report on it.
#
#   bench/run.sh [--quick] [DIR]
#
# Default size is shaped like the 1.21 GB reference database (8 processes,
# 4 trace blocks of ~730k calls and 3 comm blocks per process); --quick makes
# a small one (CI uses it to prove the script works). Prints a table: report,
# wall seconds, MB/s of the data files it reads, peak RSS, and the time of a
# plain sequential read of those bytes (the physical limit here).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
dir=${1:-${TMPDIR:-/tmp}/profparse-bench}

cargo build --release --quiet
bin=target/release/profparse

if [ "$quick" = 1 ]; then
  gen=(--procs 4 --nfiles 4 --blocks 2 --calls 20000 --messages 2000 --functions 20 --depth 6)
else
  gen=(--procs 8 --nfiles 8 --blocks 4 --calls 730000 --messages 120000 --functions 40 --depth 9)
fi
if [ ! -f "$dir/bl_prof_H" ] || [ "$quick" = 1 ]; then
  rm -rf "$dir"
  "$bin" synth blprof "$dir" "${gen[@]}"
fi

size() { cat "$@" 2>/dev/null | wc -c; }
trace_bytes=$(size "$dir"/bl_call_stats_D_*)
base_bytes=$(size "$dir"/bl_prof_D_*)

plain() { # seconds to read the files sequentially
  /usr/bin/time -f %e sh -c "cat $* > /dev/null" 2>&1 | tail -1
}
trace_read=$(plain "$dir/bl_call_stats_D_*")

printf "%-44s %9s %10s %10s\n" report seconds MB/s "peak MB"
run() { # name bytes args...
  local name=$1 bytes=$2; shift 2
  local out
  out=$(/usr/bin/time -f '%e %M' "$bin" -q "$@" 2>&1 >/dev/null | tail -1)
  local s=${out% *} kb=${out#* }
  local mbs
  mbs=$(awk -v b="$bytes" -v s="$s" 'BEGIN { if (s > 0) printf "%.0f", b / 1e6 / s; else print "-" }')
  printf "%-44s %9s %10s %10s\n" "$name" "$s" "$mbs" "$((kb / 1024))"
}
run "summary"                          "$base_bytes"  summary "$dir"
run "trace-summary"                    "$trace_bytes" trace-summary "$dir"
run "trace-summary -j1"                "$trace_bytes" -j1 trace-summary "$dir"
run "trace-summary --exclude-region"   "$trace_bytes" trace-summary "$dir" --exclude-region 'R::Region01'
run "calltree"                         "$trace_bytes" calltree "$dir"
run "calltree --proc 0"                "$((trace_bytes / 8))" calltree "$dir" --proc 0
run "calltrace --proc 0 (to /dev/null)" "$((trace_bytes / 8))" calltrace "$dir" --proc 0
run "regions"                          "$trace_bytes" regions "$dir"
run "report (HTML page, to /dev/null)"  "$((trace_bytes + base_bytes))" report "$dir"
echo "plain sequential read of the trace data files: ${trace_read} s for $((trace_bytes / 1000000)) MB"
