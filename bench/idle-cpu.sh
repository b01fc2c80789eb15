#!/usr/bin/env bash
# Idle CPU of a `gallery serve` hub with N peers dialing it (a star), from /proc/PID/task/*/schedstat
# over S seconds after 15 s to settle. Usage: bench/idle-cpu.sh .build/release/gallery [N=10] [S=60]
set -euo pipefail
BIN=$1; N=${2:-10}; S=${3:-60}
D=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill $p 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
$BIN serve $D/hub --name hub --listen 127.0.0.1:0 > $D/hub.out 2> $D/hub.err & pids+=($!)
hubpid=$!
for i in $(seq 1 50); do grep -q "listening" $D/hub.err $D/hub.out 2>/dev/null && break; sleep 0.2; done
addr=$(grep -o "127.0.0.1:[0-9]*" $D/hub.err $D/hub.out | head -1 | cut -d: -f2-)
for i in $(seq 1 $N); do
  $BIN serve $D/p$i --name p$i --listen 127.0.0.1:0 --secret-file $D/hub/secret --peer $addr > $D/p$i.out 2>&1 & pids+=($!)
done
sleep 15
cpu() { local t=0; for f in /proc/$1/task/*/schedstat; do t=$((t + $(cut -d' ' -f1 $f))); done; echo $t; }
a=$(cpu $hubpid); peersA=0; for p in "${pids[@]:1}"; do peersA=$((peersA + $(cpu $p))); done
sleep $S
b=$(cpu $hubpid); peersB=0; for p in "${pids[@]:1}"; do peersB=$((peersB + $(cpu $p))); done
echo "hub with $N peers: $(python3 -c "print(f'{($b-$a)/1e9/$S*100:.3f}')")% of a core; each peer (1 link): $(python3 -c "print(f'{($peersB-$peersA)/1e9/$S*100/$N:.3f}')")% over ${S}s"
$BIN -C $D/hub status --json | python3 -c "import json,sys; s=json.load(sys.stdin); print('hub peers live:', sum(1 for p in s['peers'] if p['state']=='live'))"
