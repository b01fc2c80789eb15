#!/bin/sh
# Issue 27's figures: our nodes against Syncthing on the same files, in one run.
#
#   bench/syncthing-side-by-side.sh [gallery-bench syncthing options, e.g. --repetitions 3 --idle-seconds 60]
#
# Installs Syncthing from the distribution (apt-get, as root) when it is missing: it is the
# benchmark's peer only, never a dependency of the product or of the tests. Builds the release
# `gallery` and `gallery-bench` into SCRATCH (default `.build-release`, apart from the debug build's
# `.build`, so a test run does not wait on this build's lock; SKIP_BUILD=1 uses what is built), then runs
# `gallery-bench syncthing` inside a new network namespace whose only interface is loopback
# (`unshare -n`, in a PID namespace of its own so that nothing it starts outlives it): Syncthing, which reaches out to discovery, relay, upgrade and usage servers by
# default, is configured with all of that off and could reach nothing anyway. JSON lines go to
# standard output, the Markdown table of medians and targets to standard error.
set -eu
cd "$(dirname "$0")/.."

if ! command -v syncthing >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "syncthing-side-by-side: syncthing is not installed; run as root to install it (apt-get install syncthing)" >&2
        exit 69
    fi
    echo "syncthing-side-by-side: installing syncthing from the distribution" >&2
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y syncthing >&2
fi

scratch=${SCRATCH:-.build-release}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --scratch-path "$scratch" --product gallery >&2
    swift build -c release --scratch-path "$scratch" --product gallery-bench >&2
fi
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)

echo "syncthing-side-by-side: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo '?')" >&2
# A network namespace with only loopback, and a PID namespace whose processes (Syncthing
# included) all end with this script, however it ends.
exec unshare --net --pid --fork --kill-child --mount-proc \
    sh -c 'ip link set lo up && exec "$0" syncthing "$@"' "$bin/gallery-bench" "$@"
