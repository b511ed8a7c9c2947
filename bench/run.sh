#!/usr/bin/env bash
# Generates synthetic inputs and times every report on them, at 1 thread and
# at all threads, side by side with a plain sequential read of the bytes each
# report needs (the physical limit on this machine).
#
#   bench/run.sh [--quick] [DIR]
#
# Default inputs: a database shaped like the 1.21 GB reference database
# (8 processes, 4 trace blocks of ~730k calls and 4 comm blocks per process, one per trace block),
# a 10,000-process and a 100,000-process database, and a 128 MB tlog file of
# 8 M events (the C reader's anchor); then the rank-count scaling rows:
# databases of the same bytes from 64, 4,096 and 16,384 processes. --quick makes small ones (CI uses it to
# prove the script works). Wall seconds are the best of 5 rounds
# (PROFPARSE_BENCH_RUNS), each running one thread, all threads and the plain
# read in turn; peak MB is the peak resident set of the best run at all
# threads.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
dir=${1:-${TMPDIR:-/tmp}/profparse-bench}
[ "$quick" = 1 ] && dir="$dir-quick"
mkdir -p "$dir"

cargo build --release --quiet
bin=target/release/profparse
threads=$(nproc)
# Runs per measurement (the best counts): shared machines are noisy.
runs=${PROFPARSE_BENCH_RUNS:-5}
[ "$quick" = 1 ] && runs=1

if [ "$quick" = 1 ]; then
  big=(--procs 4 --nfiles 4 --blocks 2 --calls 20000 --messages 2000 --functions 20 --depth 6)
  wide=(--procs 100 --calls 10 --messages 2)
  wider=(--procs 1000 --calls 2 --messages 1)
  tlog=(--procs 4 --events 20000)
else
  big=(--procs 8 --nfiles 8 --blocks 4 --calls 730000 --messages 120000 --functions 40 --depth 9)
  wide=(--procs 10000 --calls 20 --messages 4)
  wider=(--procs 100000 --calls 2 --messages 1)
  tlog=(--procs 32 --events 250000)
fi
gen() { # name args...
  local name=$1; shift
  if [ ! -e "$dir/$name.done" ]; then
    rm -rf "${dir:?}/$name"
    "$bin" synth "$@"
    touch "$dir/$name.done"
  fi
}
gen db blprof "$dir/db" "${big[@]}"
gen wide blprof "$dir/wide" "${wide[@]}"
gen wider blprof "$dir/wider" "${wider[@]}"
gen tlog tlog "$dir/trace.log" "${tlog[@]}"

bytes() { cat "$@" 2>/dev/null | wc -c; }
once() { # prints "seconds peak_kb" of one run of the command
  # (wall time in ms from the clock, since time(1) rounds to 10 ms)
  # (a failed run is an error, not a fast time; exit code 3, a report made
  # with warnings such as the Chrome export's size warning, is a run)
  local t0 t1 kb status=0
  t0=$(date +%s%N)
  kb=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1) || status=$?
  if [ "$status" != 0 ] && [ "$status" != 3 ]; then
    echo "bench: failed (exit code $status): $*" >&2
    return 1
  fi
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" -v kb="$kb" 'BEGIN { printf "%.3f %s\n", (b - a) / 1e9, kb }'
}
faster() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b == "" || a < b) }'; }
# The plain read: read() the files sequentially into a 1 MiB buffer, in one
# process (not cat: it may copy without reading into user space; not a dd
# per file: the process starts would count).
plain=(perl -e 'my $b; for (@ARGV) { open(my $f, "<", $_) or die; binmode $f; 1 while sysread($f, $b, 1 << 20) }')

base=("$dir"/db/bl_prof_D_*)
trace=("$dir"/db/bl_call_stats_D_*)
comm=("$dir"/db/bl_comm_prof_D_*)
# `comm time` and `comm waits` read the trace files too (the call path of
# each MPI call): their plain read is of both.
commtrace=("${comm[@]}" "${trace[@]}")
b_base=$(bytes "${base[@]}"); b_trace=$(bytes "${trace[@]}"); b_comm=$(bytes "${comm[@]}")
b_tlog=$(bytes "$dir/trace.log")
tlog_file=("$dir/trace.log")
wide_hdr=("$dir"/wide/bl_*_H*); wider_hdr=("$dir"/wider/bl_*_H*)
hdr() { cat "$1"/bl_*_H* | wc -c; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $bin $($bin --version | cut -d' ' -f2)"
printf "%-34s %9s %8s %8s %8s %9s %8s %9s %7s\n" report "input MB" "s j1" "s j$threads" speedup "MB/s" "peak MB" "read s" "x read"
run() { # name input_bytes files_to_read_plainly(array name, or -) args...
  # Each of $runs rounds runs the report at one thread, at all threads and
  # (when given) the plain read of its files, one after the other, so that
  # the three meet the same stretch of a shared machine; the best of each
  # counts, and the peak memory of the best run at all threads.
  local name=$1 input=$2 files=$3; shift 3
  local s1="" sn="" kb=0 r="-" t
  if [ "$files" != - ]; then local -n read_these=$files; fi
  for _ in $(seq "$runs"); do
    # `pre`: what to do before each run, untimed (e.g. remove the output of
    # the last one, so that no run waits for the old files' writeback).
    if [ -n "${pre:-}" ]; then eval "$pre"; fi
    t=$(once "$bin" -q -j1 "$@") || exit 1
    if faster "${t% *}" "$s1"; then s1=${t% *}; fi
    if [ -n "${pre:-}" ]; then eval "$pre"; fi
    t=$(once "$bin" -q -j"$threads" "$@") || exit 1
    if faster "${t% *}" "$sn"; then sn=${t% *}; kb=${t#* }; fi
    if [ "$files" != - ]; then
      t=$(once "${plain[@]}" "${read_these[@]}") || exit 1
      if [ "$r" = - ] || faster "${t% *}" "$r"; then r=${t% *}; fi
    fi
  done
  awk -v n="$name" -v b="$input" -v s1="$s1" -v sn="$sn" -v kb="$kb" -v r="$r" 'BEGIN {
    printf "%-34s %9.0f %8.3f %8.3f %8s %9s %8.0f %9s %7s\n", n, b / 1e6, s1, sn,
      (sn > 0 ? sprintf("%.2f", s1 / sn) : "-"), (sn > 0 ? sprintf("%.0f", b / 1e6 / sn) : "-"), kb / 1024, r,
      (r != "-" && r > 0 ? sprintf("%.1f", sn / r) : "-") }'
}
out=$(mktemp -d)
run "summary"                        "$b_base"  base   summary "$dir/db"
run "trace-summary"                  "$b_trace" trace trace-summary "$dir/db"
run "trace-summary --exclude-region" "$b_trace" trace trace-summary "$dir/db" --exclude-region 'R::Region01'
run "regions"                        "$b_trace" trace regions "$dir/db"
run "calltree"                       "$b_trace" trace calltree "$dir/db"
run "calltree --proc 0"              "$((b_trace / 8))" - calltree "$dir/db" --proc 0
run "calltrace --proc 0"             "$((b_trace / 8))" - calltrace "$dir/db" --proc 0
run "comm stats"                     "$b_comm"  comm   comm stats "$dir/db"
run "comm check"                     "$b_comm"  comm   comm check "$dir/db"
run "comm pairs"                     "$b_comm"  comm   comm pairs "$dir/db"
run "comm barriers"                  "$b_comm"  comm   comm barriers "$dir/db"
run "comm barriers --reductions"     "$b_comm"  comm   comm barriers "$dir/db" --reductions
run "comm matrix"                    "$b_comm"  comm   comm matrix "$dir/db"
run "comm clocks"                    "$b_comm"  comm   comm clocks "$dir/db"
run "comm waits --align-clocks"      "$((b_comm + b_trace))" commtrace comm waits "$dir/db" --align-clocks
run "comm timeline --svg"            "$b_comm"  comm   comm timeline "$dir/db" --svg "$out/t.svg"
run "diff (the run with itself)"      "$((2 * b_trace))" - diff "$dir/db" "$dir/db"
run "export --chrome (to /dev/null)"  "$((b_trace + b_comm))" - export "$dir/db" --chrome /dev/null
run "report (HTML page)"             "$((b_base + b_trace + b_comm))" - report "$dir/db" -o /dev/null
pre="rm -rf '$out/pq'" \
run "export --parquet"               "$((b_trace + b_comm))" - export "$dir/db" --parquet "$out/pq"
run "tlog dump --style tlog_dump"    "$b_tlog"  tlog_file  tlog dump "$dir/trace.log" --style tlog_dump
run "tlog dump (Java style)"         "$b_tlog"  tlog_file  tlog dump "$dir/trace.log"
run "tlog summary"                   "$b_tlog"  tlog_file  tlog summary "$dir/trace.log"
run "tlog tree"                      "$b_tlog"  tlog_file  tlog tree "$dir/trace.log"
run "info, 10k processes"            "$(hdr "$dir/wide")"  wide_hdr  info "$dir/wide"
run "summary, 10k processes"         "$(bytes "$dir"/wide/bl_prof_D_*)" - summary "$dir/wide"
run "trace-summary, 10k processes"   "$(bytes "$dir"/wide/bl_call_stats_D_*)" - trace-summary "$dir/wide"
run "comm stats, 10k processes"      "$(bytes "$dir"/wide/bl_comm_prof_D_*)" - comm stats "$dir/wide"
run "info, 100k processes"           "$(hdr "$dir/wider")" wider_hdr info "$dir/wider"
run "summary, 100k processes"        "$(bytes "$dir"/wider/bl_prof_D_*)" - summary "$dir/wider"

# The yardstick of issue-level targets: the project's shared generator's
# database shaped like the real 1.21 GB one (shared/tools/SYNTH.md), for the
# communication reports; skipped in --quick and where the generator or
# numpy is missing (PROFPARSE_YARDSTICK names the script elsewhere).
yard_script=${PROFPARSE_YARDSTICK:-../shared/tools/synth_blprof.py}
if [ "$quick" = 0 ] && [ -f "$yard_script" ] && python3 -c 'import numpy' 2> /dev/null; then
  if [ ! -e "$dir/yardstick.done" ]; then
    python3 "$yard_script" "$dir/yardstick" --procs 8 --nfiles 8 --flushes 4 --comm-flushes 3 \
      --funcs 18 --depth 8 --regions 6 --steps 40 --calls-per-proc 3000000 --comm-per-proc 1440868 \
      --imbalance 0.2 --host-prefix vm --ranks-per-node 0 --seed 42 --force > /dev/null
    touch "$dir/yardstick.done"
  fi
  y="$dir/yardstick/bl_prof"
  ycomm=("$y"/bl_comm_prof_D_*)
  b_ycomm=$(bytes "${ycomm[@]}")
  ycommtrace=("${ycomm[@]}" "$y"/bl_call_stats_D_*)
  b_ycommtrace=$(bytes "${ycommtrace[@]}")
  run "yardstick: comm stats"             "$b_ycomm" ycomm comm stats "$y"
  run "yardstick: comm pairs"             "$b_ycomm" ycomm comm pairs "$y"
  run "yardstick: comm barriers"          "$b_ycomm" ycomm comm barriers "$y"
  run "yardstick: comm barriers --reductions" "$b_ycomm" ycomm comm barriers "$y" --reductions
  run "yardstick: comm time"              "$b_ycommtrace" ycommtrace comm time "$y"
  run "yardstick: comm clocks"            "$b_ycomm" ycomm comm clocks "$y"
  run "yardstick: comm waits --align-clocks" "$b_ycommtrace" ycommtrace comm waits "$y" --align-clocks
else
  echo "(yardstick rows skipped: no $yard_script, numpy, or --quick)"
fi

# Rank-count scaling (issue 41): three databases of about the same bytes
# (comm ~38 MB, trace ~50 MB) from 64, 4,096 and 16,384 processes; each
# command's cost per input byte at all threads, relative to 64 processes
# (x64). Input bytes: the data and header files of the parts it reads.
if [ "$quick" = 1 ]; then
  ranks=(8:2048:512 64:256:64 256:64:16)
else
  ranks=(64:16384:6144 4096:256:96 16384:64:24)
fi
for r in "${ranks[@]}"; do
  IFS=: read -r p c m <<< "$r"
  gen "ranks$p" blprof "$dir/ranks$p" --procs "$p" --calls "$c" --messages "$m"
done
echo
printf "%-30s %6s %9s %8s %9s %8s %6s\n" "rank-count scaling" procs "input MB" "s j$threads" "MB/s" "peak MB" x64
declare -A first_of # a row's seconds per byte at 64 processes, by name
scale() { # name part(all|trace|comm) args... (@ stands for the database)
  local name=$1 part=$2 first="" p db files input best kb t a
  shift 2
  for r in "${ranks[@]}"; do
    p=${r%%:*}; db="$dir/ranks$p"
    case $part in
      all) files=("$db"/bl_*) ;;
      trace) files=("$db"/bl_call_stats_*) ;;
      comm) files=("$db"/bl_comm_prof_*) ;;
    esac
    input=$(bytes "${files[@]}")
    local args=()
    for a in "$@"; do if [ "$a" = @ ]; then args+=("$db"); else args+=("$a"); fi; done
    best=""; kb=0
    for _ in $(seq "$runs"); do
      t=$(once "$bin" -q -j"$threads" "${args[@]}") || exit 1
      if faster "${t% *}" "$best"; then best=${t% *}; kb=${t#* }; fi
    done
    # Seconds per byte of the first (64-process) row.
    [ -z "$first" ] && first=$(awk -v s="$best" -v b="$input" 'BEGIN { print s / b }')
    first_of[$name]=$first
    awk -v n="$name" -v p="$p" -v b="$input" -v s="$best" -v kb="$kb" -v f="$first" 'BEGIN {
      printf "%-30s %6d %9.0f %8.3f %9.0f %8.0f %6.1f\n", n, p, b / 1e6, s,
        (s > 0 ? b / 1e6 / s : 0), kb / 1024, (f > 0 ? s / b / f : 0) }'
  done
}
scale "check"                      all   check @
scale "report (HTML page)"         all   report @ -o /dev/null
scale "calltree"                   trace calltree @
scale "comm stats"                 comm  comm stats @
scale "comm barriers"              comm  comm barriers @
scale "comm matrix"                comm  comm matrix @
scale "comm pairs"                 comm  comm pairs @
scale "comm time"                  comm  comm time @
scale "comm timeline --svg"        comm  comm timeline @ --svg /dev/null
scale "comm clocks"                comm  comm clocks @
scale "comm waits"                 comm  comm waits @
scale "comm waits --align-clocks"  comm  comm waits @ --align-clocks
scale "comm check"                 comm  comm check @
# The floor (bench/floor/comm.rs): only the stanza fields and records the
# command needs, no checks, names or warnings. Its x64 is against
# profparse's own 64-process row: the room the target leaves a reader.
floor() { # name mode row
  local name=$1 mode=$2 row=$3 r p db input best t
  for r in "${ranks[@]}"; do
    p=${r%%:*}; db="$dir/ranks$p"
    input=$(bytes "$db"/bl_comm_prof_*)
    best=""
    for _ in $(seq "$runs"); do
      t=$(once "$dir/comm-floor" "$mode" "$db") || exit 1
      if faster "${t% *}" "$best"; then best=${t% *}; fi
    done
    awk -v n="$name" -v p="$p" -v b="$input" -v s="$best" -v f="${first_of[$row]}" 'BEGIN {
      printf "%-30s %6d %9.0f %8.3f %9.0f %8s %6.1f\n", n, p, b / 1e6, s,
        (s > 0 ? b / 1e6 / s : 0), "-", (f > 0 ? s / b / f : 0) }'
  done
}
rustc -O --edition 2021 bench/floor/comm.rs -o "$dir/comm-floor"
floor "comm barriers: floor"       barriers "comm barriers"
floor "comm stats: floor"          stats    "comm stats"
rm -rf "$out"
