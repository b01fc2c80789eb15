/// The help text of `gallery-bench`.
enum BenchUsage {
    static let text = """
        usage: gallery-bench model [--only WORKLOAD]
               gallery-bench sync
               gallery-bench sync catch-up [--rounds N] [--only signed|unsigned]
               gallery-bench hash [--kernel]
               gallery-bench crypto [--kernel]
               gallery-bench transfer [--sweep | --drop-latency [--rounds 3]]
               gallery-bench import [--files 1000] [--bytes 4194304]
               gallery-bench node
               gallery-bench startup
               gallery-bench commit [--commits 1000] [--rounds 3]
               gallery-bench load [--nodes 8] [--rate 500] [--seconds 60] [--store disk|memory] [--seed 1] [--flood] [--relay-hold 5]
                                  [--plain-ops] [--no-mirror]
               gallery-bench scale [--items 1000000] [--galleries 100] [--seed 1]
               gallery-bench catchup [--ops 1000000] [--nodes 7] [--rate 500] [--settle 3] [--clients 4]
               gallery-bench chaos [--seed N] [--seconds S] [--nodes K] [--workers W] [--largest-blob BYTES]
                                   [--drag-timeout S] [--keep]
               gallery-bench flood [--seconds 20] [--attackers 2]
               gallery-bench web [--items 10000] [--samples 200] [--blob-mib 256] [--streams 1000]
                                 [--paint-runs 5] [--reference-items 300] [--only paint]
               gallery-bench thumbs [--images 8] [--size 320]
               gallery-bench thumbs-arrival [--images 8]
               gallery-bench viewer [--photos 300] [--samples 15] [--pixels 6000x4000]
               gallery-bench syncthing [--repetitions 3] [--idle-seconds 60] [--small-files 10000] [--small-bytes 4096]
                                       [--medium-files 1000] [--medium-bytes 102400] [--large-mib 256]
                                       [--watch-items 100,100000] [--watch-changes 300] [--watchers 8] [--watch-blocks 3] [--only ours|syncthing]
               gallery-bench watch [--repetitions 3] [--watch-items 100,100000] [--watch-changes 300] [--watchers 8] [--watch-blocks 3]
               gallery-bench mesh-sim [--seed 1] [--nodes 50] [--topology random|ring|star|sparse] [--degree 4]
                                      [--latency-ms 10] [--jitter-ms 2] [--bandwidth BYTES/S] [--seconds 60]
                                      [--ops-per-second 5] [--churn FRACTION/MIN] [--link-drops N/MIN]
                                      [--partition] [--fsync-ms 2] [--heal-seconds 120] [--sabotage lying-fsync|silent-root|withholding-parent|trickle-root]
                                      [--plain-ops] [--no-depose] [--no-leave]

        Runs the model benchmarks (build with -c release) and prints one JSON line per workload:
        {"workload", "ops", "seconds", "opsPerSecond", "bytes", "peakRSSBytes"} (W6 adds "bytesPerItem").
        Each workload runs in its own child process so that its peak RSS is its own.

          --only WORKLOAD   run one workload in this process: \(ModelWorkloads.names.joined(separator: ", "))

        mesh-sim: --nodes real nodes (SyncNode: sessions, pipelines, group commit) in this process on one
        seeded scheduler and a simulated network (latency with jitter, bandwidth, link drops, a partition,
        crashes whose storage loses unsynced writes): --ops-per-second ops at random nodes for --seconds
        simulated seconds, then healing; checks that every node converged to the same replica, that no
        op durable somewhere is missing anywhere and none was stored twice. Prints one line (convergence
        p50/p99 per op, bytes on the wire per op per receiving node, the trace digest, wall time); on a
        failure, what broke and the command that replays the run exactly (exit status 1).
        viewer: --photos generated JPEGs (--pixels) added on one node, its peer's page in Chromium: bytes for the
        first screen and for scrolling the whole gallery, frame times while scrolling, renderer memory; then the
        viewer opened on --samples photos only the first node holds: ms to the 1280 px thumbnail and to the original.
        thumbs: thumbnails (--size px long edge) of --images generated 6000x4000 JPEGs with our Thumbnailer
        on one core and on all cores, then with vipsthumbnail and ImageMagick's convert -thumbnail (with and
        without -define jpeg:size=) when installed; one JSON line each, images per wall and per CPU second.
        thumbs-arrival: what a node pays when --images such JPEGs arrive: both thumbnails (320, 1280) of each
        made by the node's ThumbnailMaker from its blob store into its derived store, with one thread and with
        the node's pool; images per wall and per CPU second, and the thumbnail bytes replicated per item.
        syncthing: our nodes against Syncthing (the Debian package) side by side on the same files in one
        run, alternating, --repetitions rounds, medians (issue 27's figures); runs only in a loopback-only
        network namespace: use bench/syncthing-side-by-side.sh, which installs Syncthing if missing, builds
        and enters `unshare -n`. Each round: two fresh nodes; import of the small and medium files against
        Syncthing's first scan; sync of the medium files and of the large file to the peer (ours: a drag,
        theirs: the folder shared) with time, MB/s, peak memory, the receiver's peak threads and memory
        after; 1,000 moves until the peer has them (ours: one command, and one command per item; theirs:
        renames and a scan); the idle CPU of the two. Then, ours only, `watch` CPU per change at each of
        --watch-items. One JSON line per sample and per target; a Markdown table on standard error.
        watch: the `watch` cost per change of `syncthing` alone (no Syncthing, no namespace): at each of
        --watch-items gallery sizes, alternated, a node's CPU per change with --watchers `gallery watch --json`
        attached minus without, in --watch-blocks interleaved blocks, and the watchers' own CPU per change;
        the median at the largest size against the smallest (within 20%).
        flood: hostile connections to a node (garbage, 2 GiB headers, wrong secrets, replayed auths,
        fetch and control requests before the handshake) while a real peer sends it ops: how many it
        survived, whether any got a frame beyond the handshake, and the peer's op latency meanwhile.
        web: real nodes (`gallery serve --http`) in headless Chromium: a gallery of --items painted and
        scrolled (ms, JS heap, renderer memory); --samples moves sent to node B, seen moved on A's page
        (p50/p99 ms, one clock); GET /blobs of a --blob-mib MiB blob vs raw loopback TCP (ratio);
        the page's requests and the page in Chromium while --streams event streams are open on A
        (ms), and A's resident memory per open stream (KiB).
        sync: two nodes on loopback: catch-up of 100,000 ops (time, bytes per op) and the latency
        of one op from A to B, p50 and p99 over 10,000 ops.
        node: a node on a directory driven through its port: 1,000 PNG files added as one command and
        as 1,000 commands (items/s, op log fsyncs), and its resident memory with 100,000 items.
        hash: SHA-256 over 256 MiB with each kernel (portable Swift, and the CPU's SHA instructions if
        it has them) against openssl speed -evp sha256 and coreutils sha256sum in the same run, and
        CRC32. --kernel only prints which kernel SHA256 uses here (GALLERY_SHA256_PORTABLE=1 forces
        the portable one) and which one the CPU has.
        crypto: ChaCha20-Poly1305 seal on 16 KiB and 65,519-byte records, ChaCha20 and Poly1305 alone,
        and X25519 operations per second (per CPU second, best of 3 rounds of 1 s), against openssl speed
        (as installed, and with OPENSSL_ia32cap=0: no SIMD) in the same run. --kernel only prints which
        ChaCha20 kernel the AEAD uses here (GALLERY_CHACHA20_PORTABLE=1 forces the portable one) and
        which one the CPU has.
        transfer: drag and drop between two nodes on loopback: one 256 MiB blob (against plain TCP
        loopback and SHA-256 measured in the same run), the same drag sealed against unsealed (three
        alternated rounds on fresh nodes: what encryption costs), the latency of 200 drags of 1 MiB images
        (placeholder on the source node, commit), the same while a 256 MiB drag runs, and 100 drags of
        1 MiB images at once. --sweep: the 256 MiB drag with each chunk size and chunks per fetch.
        --drop-latency: only the 200 drags, on fresh nodes per round, each round with the disk's own fsync
        latency (one file, and two at once as a store syncs the op log and its mirror) before and after.
        import: gallery add FOLDER of --files image files of --bytes each (read from the disk) against a
        gallery serve child, against the disk's write rate and SHA-256 on every core in the same run.
        commit: what the op log's mirror costs: a node's storage on a directory of the current
        directory's disk persists --commits single ops (an append and fsync each, p50/p99) and 200
        batches of 64, then starts from it; with the log alone and with oplog.mirror, alternated over
        --rounds rounds; one JSON line each.
        startup: a node directory with 1,000,000 ops in its log restored by replay, then from a
        snapshot, then from a snapshot and 50,000 ops in the log.

        load: nodes in a full mesh on 127.0.0.1 in this process (GalleryServers on temporary
        directories with --store disk, in-memory SyncNodes with --store memory), each making --rate ops
        per second (inserts, moves, updates, deletes in its own and a shared gallery), paced by a timer,
        for --seconds: ops made and applied per second, the time until all nodes converge after the load,
        op propagation latency (p50, p90, p99), fsyncs per node, CPU and memory. --no-mirror: disk nodes
        keep their op log once (no oplog.mirror), the baseline of what the copy costs.
        scale: a node directory whose op log holds --items single-item inserts across --galleries
        galleries: the node's start-up time and memory (in a child process), and the catch-up time and
        bytes of a new empty node (another child) joining it.
        catchup: --nodes in-memory nodes in a full mesh whose space holds --ops ops edit at --rate ops/s
        each; after --settle seconds a new empty node joins them all: the time until it holds what the
        mesh held when it joined, the ops and bytes it received, and the editors' latency p99 meanwhile.

        chaos: 3 to 5 `gallery serve` processes (the `gallery` binary next to this one) in a chain or a
        mesh, under a seeded schedule for S seconds (default 60): adds of PNGs of 1 KiB to BYTES (default
        8 MiB), moves, deletes, updates, drags with --copy and --move, cancels, from W threads (default 3),
        while nodes are killed with -9 and restarted, told to disconnect a peer, or paused with SIGSTOP
        past the heartbeat timeout. Then heals and checks: identical galleries everywhere, every
        acknowledged command reflected, --move sources gone exactly when their copies committed, no
        placeholder left, every blob hashing to its name. Prints one JSON summary line; exits 1 with
        the violations, the seed and the command that replays it (default seed: random).

        exit codes: 0 success, 1 a benchmark failed, 64 usage error
        """
}
