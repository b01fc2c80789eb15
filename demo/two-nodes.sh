#!/usr/bin/env bash
# Two nodes on loopback: alice adds images, bob (peered with alice) lists them, both stop.
# Drag and drop between them comes with issue 5; this shows the sync underneath.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product gallery >/dev/null
gallery=$(swift build --show-bin-path)/gallery
work=$(mktemp -d)
trap 'kill $alice_pid $bob_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

wait_for_line() {  # FILE: waits up to 10 s for "listening on", prints the address
  for _ in $(seq 1 100); do
    if grep -q "listening on" "$1"; then sed -n 's/^listening on //p' "$1"; return; fi
    sleep 0.1
  done
  echo "node did not start" >&2; exit 1
}

"$gallery" serve "$work/alice" --name alice > "$work/alice.out" 2> "$work/alice.log" & alice_pid=$!
alice_address=$(wait_for_line "$work/alice.out")
"$gallery" serve "$work/bob" --name bob --peer "$alice_address" --secret-file "$work/alice/secret" > "$work/bob.out" 2> "$work/bob.log" & bob_pid=$!
wait_for_line "$work/bob.out" >/dev/null

# A tiny PNG header is enough for the node to read the type and the aspect ratio.
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x02\x80\x00\x00\x01\xe0\x08\x02\x00\x00\x00' > "$work/venice.png"
"$gallery" -C "$work/alice" add "$work/venice.png"
"$gallery" -C "$work/alice" add https://example.org/rome.jpg --aspect 1.5
for _ in $(seq 1 50); do
  [ "$("$gallery" -C "$work/bob" list alice | grep -c ready)" = 2 ] && break
  sleep 0.1
done
echo "--- bob lists alice's gallery:"
"$gallery" -C "$work/bob" list alice
"$gallery" -C "$work/bob" status
