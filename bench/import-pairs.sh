#!/bin/bash
# The copying import of 1,000 x 100 KiB, main's buffered write against the direct one, alternated:
#
#   bench/import-pairs.sh BIN_DIR [PAIRS]      (BIN_DIR: where the release `gallery` is)
#
# Each run: a fresh `gallery serve` node, the files dropped from the page cache, then
# `gallery -C DIR add FOLDER --json` timed with its stages (GALLERY_IMPORT_STAGES=1) and its CPU;
# the first of a pair with GALLERY_BUFFERED_BLOBS=1. Node directories go under a parent flagged
# `chattr +T` (ext4 spreads its new directories over block groups), so that neither run pays for
# files another process deleted in the same group (BENCHMARKS.md, "Import of 1,000 x 100 KiB").
set -eu
bin=$(cd "$1" && pwd); pairs=${2:-3}
root=$(mktemp -d /tmp/import-pairs.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/files" "$root/nodes"; chattr +T "$root/nodes" 2>/dev/null || true
for i in $(seq -w 0 999); do
    { printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x0f\xc0\0\0\x0b\xd0\x08\x02\0\0\0\0\0\0\0'
      head -c 102367 /dev/urandom; } > "$root/files/IMG_$i.png"
done
sync
drop() { python3 -c 'import os,sys
for n in os.listdir(sys.argv[1]):
    fd=os.open(os.path.join(sys.argv[1],n),os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)' "$root/files"; }
run() {
    local label=$1; shift
    local d; d=$(mktemp -d "$root/nodes/node.XXXX")
    "$bin/gallery" serve "$d/n" --name a --listen 127.0.0.1:0 > "$d/serve.log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 200); do grep -q "listening on" "$d/serve.log" 2>/dev/null && break; sleep 0.05; done
    "$bin/gallery" -C "$d/n" new-gallery m > /dev/null
    drop; sync
    env "$@" GALLERY_IMPORT_STAGES=1 /usr/bin/time -f "%e s wall, %U user %S sys" -o "$d/time" \
        "$bin/gallery" -C "$d/n" add "$root/files" --to m --json > /dev/null 2> "$d/err"
    echo "$label: $(cat "$d/time") | $(grep stages "$d/err") | load $(cut -d' ' -f1 /proc/loadavg)"
    kill "$pid"; wait "$pid" 2>/dev/null || true
}
for _ in $(seq 1 "$pairs"); do
    run buffered GALLERY_BUFFERED_BLOBS=1
    run direct IMPORT_PAIRS=1
done
