#!/usr/bin/env bash
# Builds repro.c against the system's libsoup-3.0, starts server.py on the loopback and runs the
# reproducer RUNS times, then counts the outcomes.
#
#   run.sh [--server hold|answer|early] [--server-delay MS] [--load N] [--runs K] [--asan]
#          [--valgrind|--gdb] [--fatal-criticals] [--keep-logs DIR] [-- REPRO_ARGS...]
#
# REPRO_ARGS go to repro (see repro.c: -n SENDS -r ROUNDS -c idle|delay:MS|got-headers|thread:MS
# -s wrote-headers|wrote-body); -p is added here. Defaults: --server answer --server-delay 0
# --runs 5 -- -n 200 -r 10 -c delay:1 (a server answering at once, each send cancelled 1 ms after
# its request headers were written). --server-delay: server.py --delay-ms (mode answer);
# --load N: N busy loops run beside the reproducer (the timing window is wider under CPU load).
# Examples:
#   run.sh                                   fast server, cancel 1 ms after the request was written
#   run.sh --server early -- -c delay:0      response already buffered: deterministic
#   run.sh --server hold -- -c idle          a server that never answers (does not reproduce)
#   run.sh --server answer --server-delay 5 -- -c thread:5   cancelled from another thread
# Build output and logs go to a temporary folder, nothing is written beside this script.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
server_mode=answer server_delay=0 load=0 runs=5 asan=0 valgrind=0 gdb=0 fatal=0 keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --server) server_mode=$2; shift 2 ;;
        --server-delay) server_delay=$2; shift 2 ;;
        --load) load=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --asan) asan=1; shift ;;
        --valgrind) valgrind=1; shift ;;
        --gdb) gdb=1; shift ;;
        --fatal-criticals) fatal=1; shift ;;
        --keep-logs) keep=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
repro_args=("$@")
[ ${#repro_args[@]} -gt 0 ] || repro_args=(-n 200 -r 10 -c delay:1)

work=$(mktemp -d)
server_pid=""
load_pids=()
cleanup() {
    exec 3>&- 2>/dev/null || true
    for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work"/run-*.log "$keep"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cflags=(-g -O1 -Wall -Wextra)
[ "$asan" = 1 ] && cflags+=(-fsanitize=address -fno-omit-frame-pointer)
# shellcheck disable=SC2046 # pkg-config's output is meant to split into words
gcc "${cflags[@]}" "$here/repro.c" -o "$work/repro" $(pkg-config --cflags --libs libsoup-3.0)
echo "run.sh: libsoup $(pkg-config --modversion libsoup-3.0), GLib $(pkg-config --modversion glib-2.0)," \
     "server $server_mode, $runs runs of: repro ${repro_args[*]}"

mkfifo "$work/server-stdin"
python3 "$here/server.py" --mode "$server_mode" --delay-ms "$server_delay" --lifetime 900 <"$work/server-stdin" >"$work/server.out" &
server_pid=$!
exec 3>"$work/server-stdin"   # the server stops when this closes
for _ in $(seq 100); do grep -q '^PORT ' "$work/server.out" 2>/dev/null && break; sleep 0.05; done
port=$(awk '/^PORT /{print $2}' "$work/server.out")
[ -n "$port" ] || { echo "run.sh: server did not start" >&2; exit 1; }

for _ in $(seq "$load"); do
    timeout 900 sh -c 'while :; do :; done' &
    load_pids+=($!)
done
runner=()
if [ "$valgrind" = 1 ]; then
    runner=(valgrind --error-exitcode=99 --num-callers=30)
elif [ "$gdb" = 1 ]; then   # a backtrace of every thread where it crashes
    runner=(gdb -q -batch -ex run -ex "thread apply all bt" -return-child-result --args)
fi
envs=(ASAN_OPTIONS=detect_leaks=0)
[ "$fatal" = 1 ] && envs+=(G_DEBUG=fatal-criticals)
declare -A outcomes=()
twice_runs=0 critical_runs=0 invalid_runs=0
for i in $(seq "$runs"); do
    log="$work/run-$i.log"
    set +e
    # In a subshell whose own stderr is dropped: the shell's "Aborted"/"Segmentation fault" notices.
    (env "${envs[@]}" timeout 600 "${runner[@]}" "$work/repro" -p "$port" "${repro_args[@]}" >"$log" 2>&1; exit $?) 2>/dev/null
    status=$?
    set -e
    case $status in
        0) what="clean" ;;
        3) what="finished-twice" ;;
        99) what="valgrind-errors" ;;
        124) what="timeout" ;;
        133) what="SIGTRAP(critical)" ;;
        134) what="SIGABRT" ;;
        139) what="SIGSEGV" ;;
        *) what="exit-$status" ;;
    esac
    outcomes[$what]=$(( ${outcomes[$what]:-0} + 1 ))
    grep -q 'emitted twice' "$log" && twice_runs=$((twice_runs + 1))
    grep -q 'CRITICAL' "$log" && critical_runs=$((critical_runs + 1))
    grep -Eq 'Invalid (read|write|free)|AddressSanitizer' "$log" && invalid_runs=$((invalid_runs + 1))
    echo "run $i: $what; $(grep -c 'CRITICAL' "$log" || true) criticals;" \
         "$(grep -m1 '^repro: total' "$log" || echo 'no total (died)')"
    grep -m3 -E 'CRITICAL|malloc|free\(\)|double free|corrupt' "$log" | sed 's/^/    /' || true
done
summary=""
for k in "${!outcomes[@]}"; do summary+="$k ${outcomes[$k]}, "; done
echo "run.sh: $runs runs: ${summary%, }; runs with a message finished twice: $twice_runs," \
     "with criticals: $critical_runs, with invalid accesses: $invalid_runs"
