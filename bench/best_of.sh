# Sourced by the bench scripts: `best_of LABEL RUNS COMMAND...` runs
# COMMAND RUNS times at -j 1 and at -j 2 (the -j option goes first, so
# COMMAND is the binary's arguments after it: `best_of x 5 "$bin" -- history
# DIR`) and prints the best and the median wall seconds of each.
best_of() {
    local label=$1 rounds=$2 bin=$3
    shift 3
    [ "${1:-}" = "--" ] && shift
    local jobs t0 t1 times sorted
    for jobs in 1 2; do
        times=()
        for _ in $(seq "$rounds"); do
            t0=$(date +%s.%N)
            "$bin" -j "$jobs" "$@" > /dev/null || true
            t1=$(date +%s.%N)
            times+=("$(echo "$t1 - $t0" | bc)")
        done
        sorted=$(printf '%s\n' "${times[@]}" | sort -n)
        echo "$label, -j $jobs: best $(echo "$sorted" | head -1) s," \
            "median $(echo "$sorted" | sed -n "$(( (rounds + 1) / 2 ))p") s over $rounds runs"
    done
}
