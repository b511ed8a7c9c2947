#!/usr/bin/env bash
# Runs two profparse binaries over every command × format × fixture and
# reports any difference in standard output, standard error, exit code or
# written files. A change of shape (a refactoring) must print "identical".
#
#   bench/compare-outputs.sh OLD_BINARY NEW_BINARY [EXTRA_DB ...]
#
# EXTRA_DB: more bl_prof databases to run the bl_prof commands on (the
# generated benchmark databases, ../shared/fixtures/blprof/amrlevel8/bl_prof).
# Exit code 0 when everything is identical, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Both under the name `profparse`: usage messages print the program's name.
mkdir -p "$work/bin/old" "$work/bin/new"
ln -s "$(realpath "$1")" "$work/bin/old/profparse"
ln -s "$(realpath "$2")" "$work/bin/new/profparse"
old=$work/bin/old/profparse
new=$work/bin/new/profparse
shift 2
fx=$PWD/fixtures
runs=0
diffs=0

# run NAME ARGS...: runs both binaries in fresh directories (so files written
# with relative paths are compared too) and compares everything.
run() {
    local name=$1
    shift
    runs=$((runs + 1))
    for side in old new; do
        local dir=$work/$side
        rm -rf "$dir" && mkdir -p "$dir/files"
        local bin=$old
        [ "$side" = new ] && bin=$new
        (cd "$dir/files" && COLUMNS=100 "$bin" "$@" > "$dir/stdout" 2> "$dir/stderr"
            echo $? > "$dir/rc")
    done
    if ! diff -r -q "$work/old" "$work/new" > /dev/null; then
        diffs=$((diffs + 1))
        echo "DIFFERS: $name: profparse $*"
        diff -r "$work/old" "$work/new" | head -20
    fi
}

# Damaged copies of a real database: each error and warning path once.
damaged=$work/damaged
damage() { # NAME: a fresh copy of small4 to damage
    rm -rf "${damaged:?}/$1" && mkdir -p "$damaged/$1" && cp -r "$fx/blprof/small4/bl_prof" "$damaged/$1/"
    echo "$damaged/$1/bl_prof"
}
d=$(damage trunc); for f in bl_call_stats_D_00001 bl_comm_prof_D_00002 bl_prof_D_00003; do
    truncate -s 100 "$d/$f"; done
d=$(damage headers); echo garbage > "$d/bl_comm_prof_H_00001"; echo garbage > "$d/bl_call_stats_H_00002"
d=$(damage nobase); echo garbage > "$d/bl_prof_H"
d=$(damage notrace); rm "$d"/bl_call_stats_*
d=$(damage nocomm); rm "$d"/bl_comm_prof_*
d=$(damage empty); rm "$d"/*

dbs=()
for d in "$fx"/blprof/*/bl_prof "$damaged"/*/bl_prof; do dbs+=("$d"); done
dbs+=("$@")

for db in "${dbs[@]}"; do
    n=$(basename "$(dirname "$db")")
    for f in table json; do
        run "$n info $f" info "$db" --format "$f"
        run "$n regions $f" regions "$db" --format "$f"
        run "$n regions $f proc" regions "$db" --format "$f" --proc 0
        run "$n comm stats $f" comm stats "$db" --format "$f"
        run "$n comm stats $f sel" comm stats "$db" --format "$f" --proc 1 --time 0..0.5
        run "$n comm barriers $f" comm barriers "$db" --format "$f"
        run "$n comm barriers $f red" comm barriers "$db" --format "$f" --reductions
        run "$n comm check $f" comm check "$db" --format "$f"
        run "$n comm time $f" comm time "$db" --format "$f"
        run "$n comm time $f sel" comm time "$db" --format "$f" --proc 1 --exclude-region RComm
        run "$n comm clocks $f" comm clocks "$db" --format "$f"
        run "$n comm waits $f" comm waits "$db" --format "$f"
        run "$n comm waits $f aligned" comm waits "$db" --format "$f" --align-clocks --top 5
    done
    run "$n regions filter" regions "$db" --write-filter-file filter.txt
    for f in table json csv reference; do
        run "$n summary $f" summary "$db" --format "$f"
        run "$n summary $f proc" summary "$db" --format "$f" --proc 1
        run "$n trace-summary $f" trace-summary "$db" --format "$f"
        run "$n trace-summary $f proc" trace-summary "$db" --format "$f" --proc 1
    done
    run "$n summary wide" summary "$db" --wide --sort max --top 5
    run "$n trace-summary excl" trace-summary "$db" --exclude-region RComm --wide
    run "$n trace-summary incl" trace-summary "$db" --include-region 'R*' --format json
    run "$n trace-summary filter" trace-summary "$db" --filter-file "$fx/blprof/filters/exclude_RComm.txt"
    for f in text json folded html hatchet; do
        run "$n calltree $f" calltree "$db" --format "$f"
        run "$n calltree $f proc" calltree "$db" --format "$f" --proc 1 --depth 3
    done
    run "$n calltree top" calltree "$db" --top 3 --min-percent 1 --exclude-region RComm
    run "$n calltrace" calltrace "$db"
    run "$n calltrace opts" calltrace "$db" --proc 1 --no-combine --delimiter , --reference-names
    for f in table json csv; do
        run "$n comm matrix $f" comm matrix "$db" --format "$f" --svg m.svg
        run "$n comm pairs $f" comm pairs "$db" --format "$f"
        run "$n comm pairs $f sel" comm pairs "$db" --format "$f" --proc 0 --proc 1
        run "$n comm pairs $f aligned" comm pairs "$db" --format "$f" --align-clocks --include-region 'R*'
    done
    run "$n comm timeline" comm timeline "$db" --svg t.svg --chrome t.json
    run "$n comm timeline none" comm timeline "$db"
    run "$n export chrome" export "$db" --chrome c.json
    run "$n export chrome sel" export "$db" --chrome c.json --proc 0,1 --time 0..1 --min-dur 0.0001 --no-comm
    run "$n export parquet" export "$db" --parquet pq
    run "$n report" report "$db" -o r.html
    run "$n report opts" report "$db" -o r.html --top 5 --proc 1 --depth 2 --min-percent 1
    for f in text json; do
        run "$n diff $f self" diff "$db" "$db" --format "$f"
        run "$n diff $f small4" diff "$fx/blprof/small4/bl_prof" "$db" --format "$f" --metric exclusive --sort rel --top 5
    done
    run "$n diff calls" diff "$fx/blprof/asym4/bl_prof" "$db" --metric calls --sort abs --min-diff 0.001
    run "$n info missing" info "$db/nothing"
done

for log in "$fx"/tlog/*.log "$fx"/tlog/bad/*.log; do
    n=tlog/$(basename "$log")
    for s in tlogdump tlog_dump sample; do
        run "$n dump $s" tlog dump "$log" --style "$s"
    done
    run "$n dump nodes" tlog dump "$log" --style tlog_dump --nodes 8
    for f in json csv; do
        run "$n dump $f" tlog dump "$log" --format "$f"
        run "$n dump $f raw" tlog dump "$log" --format "$f" --raw
    done
    for f in table json; do
        run "$n summary $f" tlog summary "$log" --format "$f"
    done
    for f in text json folded hatchet; do
        run "$n tree $f" tlog tree "$log" --format "$f"
        run "$n tree $f proc" tlog tree "$log" --format "$f" --proc 1
    done
    run "$n export" tlog export "$log" --chrome t.json
done
run "diff run folders" diff "$fx/blprof/small4" "$fx/blprof/asym4"
run "diff no database" diff "$fx/blprof/filters" "$fx/blprof/small4"
run "diff kinds" diff "$fx/blprof/small4" "$fx/tlog/np1.log"
run "diff missing" diff "$fx/nothing" "$fx/tlog/np1.log"
run "tlog diff" diff "$fx/tlog/np4.log" "$fx/tlog/np4_flush_part1.log"
run "tlog diff json" diff "$fx/tlog/np1.log" "$fx/tlog/np4.log" --format json

for t in "$fx"/timertree/*.json "$fx"/timertree/ours/*.xml; do
    n=tree/$(basename "$t")
    for l in timer-tree truchas table json xml; do
        run "$n show $l" tree show "$t" --layout "$l"
    done
    run "$n show indent" tree show "$t" --indent 4 --handle 2
    run "$n show b32" tree show "$t" --binary32
    for f in table json; do
        run "$n merge $f" tree merge "$t" "$fx/timertree/measured_example.json" --format "$f"
    done
done
run "tree merge keep-going" tree merge "$fx/timertree/doc_example.json" nothing.json --keep-going
run "tree diff" diff "$fx/timertree/doc_example.json" "$fx/timertree/measured_example.json"

for c in "" info summary trace-summary regions calltree calltrace comm "comm stats" \
    "comm barriers" "comm matrix" "comm pairs" "comm timeline" "comm check" "comm time" "comm clocks" "comm waits" diff export report \
    tlog "tlog dump" "tlog summary" "tlog tree" "tlog export" tree "tree show" "tree merge" \
    completions man; do
    # shellcheck disable=SC2086 # the words of the command
    run "help $c" $c --help
done

for w in "" "-q" "--strict" "-v"; do
    run "flags $w" $w summary "$fx/blprof/flush/bl_prof"
done
run "usage" summary
run "not a db" summary "$fx/tlog/np1.log"
run "tlog not a tlog" tlog dump "$fx/blprof/small4/bl_prof/bl_call_stats_H"

echo "$runs runs, $diffs differ"
if [ "$diffs" -eq 0 ]; then
    echo identical
    exit 0
fi
exit 1
