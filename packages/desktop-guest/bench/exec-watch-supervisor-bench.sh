#!/bin/bash
# The exec watch's supervisor, C (dist/osharm-exec-watch) against Python (guest/exec_watch.py), on
# this machine outside any desktop: a wrapped shell runs N short programs (/bin/true) and M
# connect() attempts closed at once; per mode it prints the wall time of that shell and the
# supervisor's CPU, per exec / per socket+connect, with the load average. "none" runs the same
# shell unwatched. Nothing is asserted. Run after the package's build:
#   bash packages/desktop-guest/bench/exec-watch-supervisor-bench.sh [N] [M] [ROUNDS]
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-300}" m="${2:-100}" rounds="${3:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
script="for i in \$(seq $n); do /bin/true; done; /usr/bin/python3 -I -S -c 'import socket
for i in range($m):
    s = socket.socket(); s.setblocking(False); s.connect_ex((\"192.0.2.1\", 9)); s.close()'"
cpu() { awk '{ split(substr($0, index($0, ")") + 2), f, " "); print (f[12] + f[13]) / 100 }' "/proc/$1/stat"; }
declare -A programs=([c]="$here/dist/osharm-exec-watch" [python]="/usr/bin/python3 -I -S $here/guest/exec_watch.py")
[ -x "$here/dist/osharm-exec-watch" ] || { echo "build first: dist/osharm-exec-watch is missing" >&2; exit 1; }
echo "exec watch supervisor: $n execs + $m socket/connect per round, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for mode in none python c; do
    start=$EPOCHREALTIME
    if [ "$mode" = none ]; then
      bash -c "$script"
      echo "round $round none:   wall $(echo "$EPOCHREALTIME - $start" | bc) s"
      continue
    fi
    read -ra program <<<"${programs[$mode]}"
    rm -f "$work/sock" "$work/record"
    "${program[@]}" supervise "$work/sock" "$work/record" </dev/null >/dev/null 2>&1 &
    supervisor=$!
    for _ in $(seq 100); do [ -S "$work/sock" ] && break; sleep 0.02; done
    start=$EPOCHREALTIME
    "${program[@]}" wrap "$work/sock" bench -- bash -c "$script"
    wall="$(echo "$EPOCHREALTIME - $start" | bc)"
    sleep 0.2
    used="$(cpu "$supervisor")"
    lines="$(wc -l <"$work/record")"
    kill "$supervisor"
    wait "$supervisor" 2>/dev/null
    printf 'round %s %-7s wall %s s, supervisor CPU %s s for %s records (%.3f ms each)\n' \
      "$round" "$mode:" "$wall" "$used" "$lines" "$(echo "$used * 1000 / $lines" | bc -l)"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
