#!/bin/sh
# Issue 23's "placeholder on the source p50 <= 3 ms", this tree against a reference commit, alternated
# in the same minutes (the machine's load and the disk's state drift more between runs than builds differ).
#
#   bench/placeholder-alternate.sh [REF_COMMIT [PAIRS]]
#
# Builds the release `gallery-bench` of this tree into SCRATCH (default `.build-release`) and that of
# REF_COMMIT (default 0f95ad8: main before h-placeholder2's control path, with the same benchmark) in a
# temporary worktree, then runs `gallery-bench transfer --drop-latency --rounds 1` with each in turn,
# PAIRS times (default 5): 200 drags of 1 MiB images on fresh nodes, and the disk's own fsync latency
# (one file, and two at once as a store syncs the op log and its mirror) before and after.
# SKIP_BUILD=1 uses what is built. Prints each run's JSON lines after "ref" or "this" and the load
# average, then the median over the runs of each build's placeholderOnSourceP50Ms.
set -eu
cd "$(dirname "$0")/.."
ref=${1:-0f95ad8}
pairs=${2:-5}
scratch=${SCRATCH:-.build-release}
refdir=${TMPDIR:-/tmp}/gallery-placeholder-ref-$ref
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --scratch-path "$scratch" --product gallery-bench >&2
    [ -d "$refdir" ] || git worktree add --detach "$refdir" "$ref" >&2
    (cd "$refdir" && swift build -c release --scratch-path .build-release --product gallery-bench >&2)
fi
out=$(mktemp)
i=0
while [ "$i" -lt "$pairs" ]; do
    for which in ref this; do
        if [ "$which" = ref ]; then bin="$refdir/.build-release/release/gallery-bench"; else bin="$scratch/release/gallery-bench"; fi
        line=$("$bin" transfer --drop-latency --rounds 1 | tr '\n' ' ')
        echo "$which load=$(cut -d' ' -f1 /proc/loadavg) $line" | tee -a "$out"
    done
    i=$((i + 1))
done
for which in ref this; do
    grep "^$which " "$out" | sed 's/.*"placeholderOnSourceP50Ms": \([0-9.]*\).*/\1/' | sort -n |
        awk -v which="$which" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s: placeholder on the source p50, median of %d runs: %.3f ms\n", which, NR, m }'
done
rm -f "$out"
