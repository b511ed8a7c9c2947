#!/usr/bin/env bash
# Times the Python package (issue 40's targets) on generated inputs:
# `run.calltree()` of a 16,384-process database (rows per second, open()
# included, best of 5; peak memory against the table's bytes) and
# `profparse.thicket()` over 1,000 TinyProfiler logs (profparse's part, the
# reading and the tables, apart from the GraphFrames and Thicket's own
# construction). The package must be installed in `python3` (or $PYTHON).
#
#   bench/python.sh [--quick] [DIR]
#
# Inputs are generated once into DIR (default $TMPDIR/profparse-bench-python);
# --quick makes small ones and runs once (CI uses it to prove the script
# works). bench/python_bench.py defines the memory measurement.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
dir=${1:-${TMPDIR:-/tmp}/profparse-bench-python}
[ "$quick" = 1 ] && dir="$dir-quick"
mkdir -p "$dir"
python=${PYTHON:-python3}
bench=("$python" bench/python_bench.py)

cargo build --release --quiet --bin profparse
bin=target/release/profparse
# Runs per measurement (the best counts): shared machines are noisy.
runs=${PROFPARSE_BENCH_RUNS:-5}
if [ "$quick" = 1 ]; then
  db=(--procs 64 --calls 200 --messages 1)
  logs=20
  runs=1
else
  # 16,384 processes of 200 calls: 1.5 M rows, a table of tens of MB.
  db=(--procs 16384 --calls 200 --messages 1)
  logs=1000
fi
if [ ! -e "$dir/db.done" ]; then
  rm -rf "${dir:?}/db"
  "$bin" -q synth blprof "$dir/db" "${db[@]}"
  touch "$dir/db.done"
fi
if [ ! -e "$dir/logs.done" ]; then
  rm -rf "${dir:?}/logs"
  "${bench[@]}" logs fixtures/tinyprofiler "$dir/logs" --count "$logs"
  touch "$dir/logs.done"
fi

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); profparse $("$python" -c 'import profparse; print(profparse.__version__)')"
"${bench[@]}" calltree "$dir/db" --runs "$runs"
# In a process of its own, so that nothing before it counts.
"${bench[@]}" memory "$dir/db"
"${bench[@]}" thicket "$dir/logs" --runs "$runs"
