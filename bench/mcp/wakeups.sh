#!/bin/bash
# Counts, per request, the context switches, wake-ups, futex calls, epoll waits and CPU time
# of proctor and of the two separate echo servers during one run of mcp_bench.py, with
# `perf stat -p` on each process (root, or perf_event_paranoid <= 0).
#
#     bench/mcp/wakeups.sh [PROFILE] [CALLS] [ROUNDS]      # defaults: dist 5000 3
#
# Each process serves CALLS x ROUNDS timed requests (plus 50 warm-up ones, and proctor
# the agent's first call too), so the per-request figures are slightly high.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-dist} calls=${2:-5000} rounds=${3:-3}
events=task-clock,context-switches,cpu-migrations,sched:sched_wakeup
events+=,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait
out=$(mktemp -d)
python3 bench/mcp/mcp_bench.py --no-build --profile "$profile" --calls "$calls" \
    --rounds "$rounds" >"$out/bench" 2>/dev/null &
bench=$!
proctor= multi= current=
until [ -n "$proctor" ]; do proctor=$(pgrep -P "$bench" -x proctor || true); done
perf stat -e "$events" -p "$proctor" -o "$out/proctor" &
counters=($!)
until [ -n "$multi" ] && [ -n "$current" ]; do
    multi=$(pgrep -f -- "--serve-bare multi" || true)
    current=$(pgrep -f -- "--serve-bare current" || true)
done
perf stat -e "$events" -p "$multi" -o "$out/multi" &
counters+=($!)
perf stat -e "$events" -p "$current" -o "$out/current" &
counters+=($!)
wait "$bench"
wait "${counters[@]}"
cat "$out/bench"
for side in proctor multi current; do
    echo "== $side"
    awk -v n=$((calls * rounds)) '$1 ~ /^[0-9.,]+$/ && $2 != "seconds" {
        gsub(",", "", $1)
        printf "%12.1f %-32s %8.3f per request\n", $1, $2, $1 / n
    }' "$out/$side"
done
rm -r "$out"
