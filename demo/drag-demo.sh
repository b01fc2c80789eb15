#!/usr/bin/env bash
# The GallerySync demo: two real nodes, alice and bob, on loopback in a temporary folder.
# They add real images, drag items to each other (--move and --copy, across nodes and locally),
# show placeholders with progress while a large image loads, reorder the same gallery at the same
# moment and converge, then stop. Every step checks its outcome; the script exits 1 (with the
# reason) if one does not end as expected, so CI runs it (.ci/run).
#
#   demo/drag-demo.sh            # from anywhere; builds the debug gallery binary first
#
# DEMO_BUILD_FLAGS adds flags to swift build (CI passes its own, so that nothing is rebuilt);
# DEMO_BIG_BYTES sets the size of the large image. Needs bash, coreutils (cmp, head, timeout if
# present), grep, sed and awk; no jq, no python.
set -euo pipefail
cd "$(dirname "$0")/.."
images=$PWD/demo/images
big_bytes=${DEMO_BIG_BYTES:-24000000}   # the large image: 24 MB loads in a few seconds (debug build)
started=$SECONDS

step() { printf '\n== %s\n' "$*"; }
say() { printf '   %s\n' "$*"; }
fail() { printf '\nDEMO FAILED: %s\n' "$*" >&2; exit 1; }

# --- build -----------------------------------------------------------------------------------
step "Building the gallery command (swift build --product gallery)"
build_log=$(mktemp)
read -r -a build_flags <<< "${DEMO_BUILD_FLAGS:-}"
if ! swift build ${build_flags[@]+"${build_flags[@]}"} --product gallery > "$build_log" 2>&1; then
  cat "$build_log" >&2; rm -f "$build_log"; fail "swift build failed"
fi
rm -f "$build_log"
gallery=$(swift build ${build_flags[@]+"${build_flags[@]}"} --show-bin-path)/gallery
[ -x "$gallery" ] || fail "no gallery binary at $gallery"
say "built $gallery"

# --- a temporary folder, and a trap that always stops the nodes and removes it ----------------
work=$(mktemp -d "${TMPDIR:-/tmp}/gallery-demo.XXXXXX")
alice_pid='' bob_pid='' helper_pids=()
stop_node() {  # PID: SIGTERM, then SIGKILL if it is still running after 10 s
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  local status=$?
  for pid in ${helper_pids[@]+"${helper_pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  stop_node "$alice_pid"; stop_node "$bob_pid"
  if [ "$status" != 0 ]; then
    for name in alice bob; do
      [ -f "$work/$name.log" ] && { echo "--- last lines of $name's log:" >&2; tail -n 15 "$work/$name.log" >&2; }
    done
  fi
  [ -n "${DEMO_KEEP:-}" ] || rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# g NODE ARGS...: a node command on NODE's directory, bounded by 60 s so that nothing hangs.
if command -v timeout > /dev/null; then bounded=(timeout 60); else bounded=(); fi
g() { local node=$1; shift; ${bounded[@]+"${bounded[@]}"} "$gallery" -C "$work/$node" "$@"; }
# show NODE ARGS...: prints the command as a user would type it, then runs it.
show() { printf '   $ gallery -C %s %s\n' "$1" "${*:2}"; g "$@" | sed 's/^/     /'; }
# wait_until SECONDS WHAT COMMAND...: polls COMMAND every 0.1 s, fails with WHAT past SECONDS.
wait_until() {
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "after ${limit} s: $what"
    sleep 0.1
  done
}

# Reading `list --json` with grep and sed (no jq needed). Keys are sorted; progress is {done, total}.
json() { g "$1" list ${2:+"$2"} --json; }
field() { grep -o "\"$1\":\"[^\"]*\"" | sed "s/^\"$1\":\"//; s/\"\$//"; }          # every string value of a key
titles() { json "$1" "$2" | field title | tr '\n' ' ' | sed 's/ $//'; }           # NODE GALLERY, in order
ids() { json "$1" "$2" | field id; }
count() { ids "$1" "$2" | grep -c . || true; }
converged() { [ "$(json alice)" = "$(json bob)" ]; }
expect_titles() {  # NODE GALLERY "TITLES": NODE must show GALLERY's items titled TITLES, in order
  local got
  got=$(titles "$1" "$2")
  [ "$got" = "$3" ] || fail "$1's node shows gallery $2 as [$got], expected [$3]"
}
all_ready() { ! json "$1" | grep -q '"state":"placeholder"'; }

# Side by side: gallery LEFT as alice's node lists it | gallery RIGHT as bob's node lists it
# (by default each node's own gallery, like two apps next to each other). IDs are shortened.
tidy() { awk -F'\t' 'NF < 4 { print; next } { split($2, id, "@"); printf "  %s %-12s %s  (%s@%.4s)\n", $1, $4, $3, id[1], id[2] }'; }
side_by_side() {
  local left=${1:-alice} right=${2:-bob}
  g alice list "$left" | tidy > "$work/left"
  g bob list "$right" | tidy > "$work/right"
  printf '   %-56s%s\n' "on alice's node:" "on bob's node:"
  awk 'NR == FNR { left[FNR] = $0; n = FNR; next } { right[FNR] = $0; m = FNR }
       END { for (i = 1; i <= (n > m ? n : m); i++) printf "   %-56s%s\n", left[i], right[i] }' "$work/left" "$work/right"
}

# --- two nodes --------------------------------------------------------------------------------
listening() { grep -q '^listening on ' "$1"; }
step "Starting two nodes in $work: alice, and bob peered with alice (sharing alice's secret)"
"$gallery" serve "$work/alice" --name alice --http > "$work/alice.out" 2> "$work/alice.log" & alice_pid=$!
wait_until 15 "alice did not print 'listening on'" listening "$work/alice.out"
alice_address=$(sed -n 's/^listening on //p' "$work/alice.out")
"$gallery" serve "$work/bob" --name bob --http --peer "$alice_address" --secret-file "$work/alice/secret" \
  > "$work/bob.out" 2> "$work/bob.log" & bob_pid=$!
wait_until 15 "bob did not print 'listening on'" listening "$work/bob.out"
say "alice listens on $alice_address, bob on $(sed -n 's/^listening on //p' "$work/bob.out")"
alice_web=$(sed -n 's/^web: //p' "$work/alice.out")
bob_web=$(sed -n 's/^web: //p' "$work/bob.out")
[ -n "$alice_web" ] && [ -n "$bob_web" ] || fail "a node did not print its 'web:' link"
say "the galleries as web pages (open both, side by side, and drag between them while the demo runs):"
say "  alice: $alice_web"
say "  bob:   $bob_web"
web_status() { curl -sf -o /dev/null -b "gallery_session=${1##*token=}" "${1%%/\?token=*}/api/status"; }
if command -v curl > /dev/null; then
  web_status "$alice_web" || fail "alice's web page does not answer"
  web_status "$bob_web" || fail "bob's web page does not answer"
fi
bob_sees_alice() { g bob peers | grep -q 'alice.*live'; }
wait_until 15 "bob is not connected to alice" bob_sees_alice
wait_until 15 "the nodes did not sync their galleries" converged
show bob peers

# --- real images ------------------------------------------------------------------------------
step "alice adds three images, bob adds two (small real files from demo/images)"
show alice add "$images/rose.jpg" "$images/wizard.png" "$images/sunset.png"
show bob add "$images/granite.gif" "$images/lagoon.png"
wait_until 15 "the nodes did not converge after the adds" converged
expect_titles alice alice "rose.jpg wizard.png sunset.png"
expect_titles bob bob "granite.gif lagoon.png"
types=$(json alice | field mediaType | sort -u | tr '\n' ' ' | sed 's/ $//')
[ "$types" = "image/gif image/jpeg image/png" ] || fail "media types read from the headers: [$types]"
rose_aspect=$(json alice alice | grep -o '{[^{}]*"title":"rose.jpg"[^{}]*}' | grep -o '"aspectRatio":[0-9.]*' | cut -d: -f2 | cut -c1-4)
[ "$rose_aspect" = "1.52" ] || fail "rose.jpg (70x46) should have the aspect ratio 1.52, not $rose_aspect"
say "the nodes read each file's type and aspect ratio from its header: $types; rose.jpg 70x46 -> $rose_aspect"
say "both nodes show the same two galleries (their list --json are identical); IDs are COUNTER@REPLICA:"
side_by_side

# --- cross-node drag with --move --------------------------------------------------------------
step "bob drags alice's first two images into his gallery at 0, --move: bob lacks their bytes"
say "so bob inserts placeholders at once, fetches the bytes from alice, commits each placeholder,"
say "and only then deletes the sources from alice's gallery"
rose_hash=$(json alice alice | grep -o '{[^{}]*"title":"rose.jpg"[^{}]*}' | field hash)
printf '   $ gallery -C bob drag alice:0 alice:1 --to bob --at 0 --move --wait\n'
out=$(g bob drag alice:0 alice:1 --to bob --at 0 --move --wait) || { echo "$out"; fail "drag --move --wait did not commit both items"; }
echo "$out" | sed 's/^/     /'
[ "$(echo "$out" | grep -c ' placeholder .* transfer ')" = 2 ] || fail "expected two placeholders with a transfer each"
[ "$(echo "$out" | grep -c '^transfer .* committed$')" = 2 ] || fail "expected two committed transfers"
wait_until 15 "the nodes did not converge after the move" converged
expect_titles alice alice "sunset.png"
expect_titles bob bob "rose.jpg wizard.png granite.gif lagoon.png"
g bob export bob:0 "$work/rose-from-bob.jpg"
cmp -s "$work/rose-from-bob.jpg" "$images/rose.jpg" || fail "the bytes bob exports for rose.jpg differ from the original"
[ "$(json bob bob | grep -o '{[^{}]*"title":"rose.jpg"[^{}]*}' | field hash)" = "$rose_hash" ] || fail "rose.jpg's hash changed"
say "bob now holds the bytes: gallery -C bob export bob:0 gives back rose.jpg byte for byte"
side_by_side

# --- cross-node drag with --copy --------------------------------------------------------------
step "alice drags bob's lagoon.png into her gallery at 0, --copy: alice fetches it from bob"
printf '   $ gallery -C alice drag bob:3 --to alice --at 0 --copy --wait\n'
out=$(g alice drag bob:3 --to alice --at 0 --copy --wait) || { echo "$out"; fail "drag --copy --wait failed"; }
echo "$out" | sed 's/^/     /'
echo "$out" | grep -q ' -> alice:0 placeholder .* transfer ' || fail "expected a placeholder and a transfer"
echo "$out" | grep -q '^transfer .* committed$' || fail "expected the transfer to be committed"
wait_until 15 "the nodes did not converge after the copy" converged
expect_titles alice alice "lagoon.png sunset.png"
expect_titles bob bob "rose.jpg wizard.png granite.gif lagoon.png"
say "a copy: lagoon.png is in both galleries, as two items"
side_by_side

# --- local drag back with --move --------------------------------------------------------------
step "alice drags rose.jpg back from bob's gallery to the end of hers, --move"
say "alice still holds rose.jpg's bytes (she added it), so the drop is local: a plain move, the"
say "item keeps its ID, no placeholder, no transfer (like a drag within one app)"
rose_id=$(ids bob bob | head -n 1)
printf '   $ gallery -C alice drag bob:0 --to alice --move --wait\n'
out=$(g alice drag bob:0 --to alice --move --wait) || { echo "$out"; fail "the local drag failed"; }
echo "$out" | sed 's/^/     /'
[ "$out" = "$rose_id -> alice:2 moved $rose_id transfer -" ] || fail "expected '$rose_id -> alice:2 moved $rose_id transfer -'"
wait_until 15 "the nodes did not converge after the local move" converged
expect_titles alice alice "lagoon.png sunset.png rose.jpg"
expect_titles bob bob "wizard.png granite.gif lagoon.png"
side_by_side

# --- a larger image: placeholder with progress -------------------------------------------------
step "A larger image: alice adds a $((big_bytes / 1000000)) MB PNG, bob drags a copy and we watch the placeholder"
# A PNG signature and IHDR chunk (4000x3000, 8-bit RGB, with its CRC) followed by random bytes: the
# node reads only the header (type and aspect ratio); it hashes, stores and sends every byte.
{ printf '\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x0f\xa0\x00\x00\x0b\xb8\x08\x02\x00\x00\x00\x7a\xd7\xd0\xb0'
  head -c "$big_bytes" /dev/urandom; } > "$work/panorama.png"
printf '   $ gallery -C alice add %s\n' "$work/panorama.png"
out=$(g alice add "$work/panorama.png" 2>&1) || fail "adding the large image failed: $out"
echo "$out" | sed 's/^/     /'
has_panorama() { titles alice alice | grep -q 'panorama.png'; }
wait_until 30 "the large image did not appear in alice's gallery" has_panorama
wait_until 15 "bob did not get the large image's insert" converged
expect_titles alice alice "lagoon.png sunset.png rose.jpg panorama.png"
# watch --json records every event of bob's gallery: the placeholder's insert, its progress and its
# commit are checked from it, whatever the speed of the transfer (the listing below may miss a fast one).
g bob watch bob --json > "$work/watch.jsonl" 2>&1 & watch_pid=$!
helper_pids+=("$watch_pid")
watching() { grep -q '"event":"watching"' "$work/watch.jsonl"; }
wait_until 15 "watch --json did not start on bob" watching
say "bob drags it to his gallery at 1 with --copy --wait, in the background; meanwhile we list bob:"
printf '   $ gallery -C bob drag alice:3 --to bob --at 1 --copy --wait &\n'
g bob drag alice:3 --to bob --at 1 --copy --wait --timeout 50 > "$work/big-drag.out" 2>&1 & drag_pid=$!
helper_pids+=("$drag_pid")
seen=0 seen_json='' deadline=$((SECONDS + 55))
while kill -0 "$drag_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
  listing=$(g bob list bob 2>/dev/null || true)
  line=$(echo "$listing" | grep -m 1 'placeholder [0-9]*/[0-9]* bytes' || true)
  if [ -n "$line" ]; then
    seen=$((seen + 1))
    if [ "$seen" = 1 ]; then
      say "the placeholder is in bob's gallery at once, while the bytes load:"
      side_by_side
      status_line=$(g bob status | grep '^transfer ' || true)
      [ -n "$status_line" ] && say "gallery -C bob status: $status_line"
      say "progress as bob's list shows it, every 0.2 s:"
    else
      say "  $(echo "$line" | tidy | sed 's/^ *//')"
    fi
    [ -n "$seen_json" ] || seen_json=$(json bob bob | grep -o '"progress":{"done":[0-9]*,"total":[0-9]*}' | head -n 1 || true)
  fi
  sleep 0.2
done
wait "$drag_pid" || { cat "$work/big-drag.out"; fail "drag of the large image did not end with a commit"; }
sed 's/^/     /' "$work/big-drag.out"
grep -q '^transfer .* committed$' "$work/big-drag.out" || fail "the large image's transfer was not committed"
# One JSON object per line, keys sorted: pick lines by their fields, whatever their order.
big_line=$(grep '"event":"inserted"' "$work/watch.jsonl" | grep '"title":"panorama.png"' | head -n 1 || true)
big_id=$(echo "$big_line" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
[ -n "$big_id" ] || fail "watch --json did not show the large image inserted in bob's gallery"
echo "$big_line" | grep -q '"state":"placeholder"' || fail "the large image did not land in bob's gallery as a placeholder first"
big_committed() { grep '"event":"committed"' "$work/watch.jsonl" | grep -q "\"id\":\"$big_id\""; }
wait_until 15 "watch --json did not show the placeholder committed" big_committed
progress_events=$(grep '"event":"progress"' "$work/watch.jsonl" | grep -c "\"id\":\"$big_id\"" || true)
[ "$progress_events" -ge 1 ] || fail "watch --json showed no progress {done, total} for the placeholder"
kill "$watch_pid" 2>/dev/null || true
say "watch --json: the placeholder $big_id inserted, $progress_events progress events, then committed"
if [ "$seen" -ge 1 ]; then
  say "bob's list showed it $seen times with progress${seen_json:+; list --json showed $seen_json}"
else
  say "the bytes arrived before bob's list (polled every 0.2 s) could show the placeholder"
fi
wait_until 15 "the nodes did not converge after the large copy" converged
all_ready bob || fail "a placeholder is left in bob's gallery"
expect_titles bob bob "wizard.png panorama.png granite.gif lagoon.png"
[ "$(json bob bob | grep -o '{[^{}]*"title":"panorama.png"[^{}]*}' | grep -o '"bytes":[0-9]*')" = "\"bytes\":$((big_bytes + 33))" ] \
  || fail "panorama.png does not have $((big_bytes + 33)) bytes in bob's gallery"
say "committed where the placeholder stood: panorama.png is ready in bob's gallery"
side_by_side

# --- concurrent reorder -----------------------------------------------------------------------
step "At the same moment, alice and bob reorder bob's gallery"
say "bob's gallery before, on both nodes:"
side_by_side bob bob
say "alice moves wizard.png to the end, bob moves it to index 2 and granite.gif to the front."
say "However the ops cross on the wire, wizard.png must appear exactly once and both nodes must end"
say "with the same order (two concurrent moves of one item: the move with the greater op ID wins)."
wizard_id=$(ids bob bob | head -n 1)
granite_id=$(ids bob bob | sed -n 3p)
printf '   $ gallery -C alice move %s --at 3 &\n' "$wizard_id"
printf '   $ gallery -C bob move %s --at 2 & gallery -C bob move %s --at 0 &\n' "$wizard_id" "$granite_id"
g alice move "$wizard_id" --at 3 & p1=$!
g bob move "$wizard_id" --at 2 & p2=$!
g bob move "$granite_id" --at 0 & p3=$!
helper_pids+=("$p1" "$p2" "$p3")
wait "$p1" && wait "$p2" && wait "$p3" || fail "a concurrent move failed"
wait_until 15 "alice and bob did not converge after the concurrent moves" converged
[ "$(count bob bob)" = 4 ] || fail "bob's gallery should still have 4 items, it has $(count bob bob)"
[ "$(ids bob bob | grep -c "^$wizard_id\$")" = 1 ] || fail "wizard.png does not appear exactly once"
order=$(titles alice bob)
[ "$(titles bob bob)" = "$order" ] || fail "the nodes show bob's gallery differently"
say "converged: both nodes' list --json are identical; bob's gallery on both nodes:"
side_by_side bob bob

# --- stop -------------------------------------------------------------------------------------
step "Stopping both nodes (SIGTERM)"
for name in alice bob; do
  pid_var=${name}_pid
  pid=${!pid_var}
  kill -TERM "$pid"
  code=0 waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 150 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -0 "$pid" 2>/dev/null && fail "$name did not stop within 15 s of SIGTERM"
  wait "$pid" || code=$?
  printf -v "$pid_var" '%s' ''
  [ "$code" = 0 ] || fail "$name exited with status $code after SIGTERM"
  say "$name stopped (within $((waited / 10)).$((waited % 10)) s, exit status 0)"
done
step "Demo complete in $((SECONDS - started)) s: every step ended as expected"
