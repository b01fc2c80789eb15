import Foundation

/// One round of our nodes in `gallery-bench syncthing` (see `SideBySideBenchmark`): two `gallery
/// serve` processes, driven by `gallery -C DIR` commands.
struct OursRound {
    let data: SideBySideData
    let options: SideBySideOptions
    let results: SideBySideResults
    let repetition: Int
    let scratch: URL

    private func note(_ text: String) {
        SideBySideLog.note("  \(text)")
    }

    private func record(_ figure: String, _ value: Double) {
        results.record(figure, .ours, repetition: repetition, value)
    }

    func run() throws {
        note("starting two nodes")
        let a = try GalleryPeer(name: "a", directory: scratch.appendingPathComponent("a"))
        defer { a.stop() }
        let b = try GalleryPeer(name: "b", directory: scratch.appendingPathComponent("b"), peer: a)
        defer { b.stop() }
        for set in [data.small, data.medium, data.large] {
            try a.command(["new-gallery", set.name])
        }
        for set in [data.small, data.medium] {
            try b.command(["new-gallery", "\(set.name)-in-place"])
        }
        // B knows A's galleries once the two are connected and caught up.
        try b.waitForGallery(data.large.name, timeout: 60)

        _ = try importSet(data.small, on: a, settling: [b])
        let medium = try importSet(data.medium, on: a, settling: [b])
        try sync(data.medium, importSeconds: medium, from: a, to: b, receiverFigures: true)
        let large = try importSet(data.large, on: a, settling: [b])
        try sync(data.large, importSeconds: large, from: a, to: b, receiverFigures: false)
        try moves(on: a, seenBy: b)
        try idle(a, b)
        // Last, so that B's thumbnails of these files (made on arrival) disturb no other figure.
        try importInPlace(data.small, on: b)
        try importInPlace(data.medium, on: b)
    }

    /// `gallery -C A add FOLDER --to SET --json`: the command's wall time, and the CPU of the
    /// command and of the node. Returns the wall time.
    /// With `--settle on`, first waits until this node and `settling` are idle (`Settle`).
    private func importSet(_ set: SideBySideData.FileSet, on node: GalleryPeer, settling: [GalleryPeer]) throws -> Double {
        note("import of \(set.name)")
        if options.settle { record("import.\(set.name).settleSeconds", Settle.quiet([node.pid] + settling.map(\.pid))) }
        SideBySideData.dropFromCache(set.ours)
        let cpu = ProcessProbe.cpuSeconds(node.pid) ?? 0
        let add = try node.command(["add", set.ours.path, "--to", set.name, "--json"])
        let nodeCPU = (ProcessProbe.cpuSeconds(node.pid) ?? 0) - cpu
        let object = try JSONSerialization.jsonObject(with: Data(add.output.utf8)) as? [String: Any]
        guard (object?["ids"] as? [Any])?.count == set.files else { throw BenchFailure.failed("ours: add of \(set.name) did not add \(set.files) items") }
        record("import.\(set.name).seconds", add.seconds)
        record("import.\(set.name).cpuSeconds", add.cpu + nodeCPU)
        return add.seconds
    }

    /// `gallery -C B add --in-place FOLDER`: the import that does what Syncthing's scan does (hash
    /// each file where it is, record it, copy nothing), on B, whose store holds none of the set.
    private func importInPlace(_ set: SideBySideData.FileSet, on node: GalleryPeer) throws {
        note("import of \(set.name) in place")
        SideBySideData.dropFromCache(set.ours)
        let cpu = ProcessProbe.cpuSeconds(node.pid) ?? 0
        let add = try node.command(["add", "--in-place", set.ours.path, "--to", "\(set.name)-in-place", "--json"])
        let nodeCPU = (ProcessProbe.cpuSeconds(node.pid) ?? 0) - cpu
        let object = try JSONSerialization.jsonObject(with: Data(add.output.utf8)) as? [String: Any]
        guard (object?["ids"] as? [Any])?.count == set.files else { throw BenchFailure.failed("ours: add --in-place of \(set.name) did not add \(set.files) items") }
        record("import.\(set.name).inPlace.seconds", add.seconds)
        record("import.\(set.name).inPlace.cpuSeconds", add.cpu + nodeCPU)
    }

    /// The set's items dragged from A's gallery into B's (`drag SET --to b --wait`), B fetching
    /// the bytes from A.
    private func sync(_ set: SideBySideData.FileSet, importSeconds: Double, from a: GalleryPeer, to b: GalleryPeer, receiverFigures: Bool) throws {
        note("drag of \(set.name) to B")
        let known = try Stopwatch.time { try b.waitForCount(set.files, in: set.name) }
        let threadsBefore = ProcessProbe.threads(b.pid) ?? 0
        let residentBefore = ProcessProbe.residentBytes(b.pid) ?? 0
        let anonymousBefore = ProcessProbe.anonymousResidentBytes(b.pid) ?? 0
        ProcessProbe.resetPeak(a.pid)
        ProcessProbe.resetPeak(b.pid)
        let sampler = ProcessSampler(b.pid)
        let drag = try b.command(["drag", set.name, "--to", "b", "--wait", "--timeout", "1200"])
        let peak = sampler.stop()
        let lines = drag.output.split(separator: "\n")
        guard lines.filter({ $0.contains("committed") }).count >= set.files else {
            throw BenchFailure.failed("ours: the drag of \(set.name) did not commit \(set.files) items: \(drag.output.suffix(300))")
        }
        record("sync.\(set.name).seconds", drag.seconds)
        record("sync.\(set.name).MBps", Double(set.totalBytes) / drag.seconds / 1e6)
        record("sync.\(set.name).whole.seconds", importSeconds + known.seconds + drag.seconds)
        record("sync.\(set.name).senderPeakMiB", Double(ProcessProbe.peakResidentBytes(a.pid) ?? 0) / 1_048_576)
        record("sync.\(set.name).receiverPeakMiB", Double(ProcessProbe.peakResidentBytes(b.pid) ?? 0) / 1_048_576)
        record("sync.\(set.name).receiverPeakThreads", Double(peak.threads))
        guard receiverFigures else { return }
        let after = ReceiverSettling.wait(pid: b.pid, threadsBefore: threadsBefore)
        record("drag.receiverThreadsBefore", Double(threadsBefore))
        record("drag.receiverRSSBeforeMiB", Double(residentBefore) / 1_048_576)
        record("drag.receiverRSSAfterMiB", Double(after.resident) / 1_048_576)
        record("drag.receiverRSSAfterOverBefore", Double(after.resident) / Double(max(1, residentBefore)))
        record("drag.receiverAnonBeforeMiB", Double(anonymousBefore) / 1_048_576)
        record("drag.receiverAnonAfterMiB", Double(after.anonymous) / 1_048_576)
        record("drag.settleSeconds", after.seconds)
    }

    /// 1,000 moves on A, until B shows the new order: one command with every item (the reverse
    /// order on standard input), then one command per item (each to the front, reversing again).
    private func moves(on a: GalleryPeer, seenBy b: GalleryPeer) throws {
        note("moves")
        let set = data.medium
        let ids = try a.items(of: set.name)?.map(\.id) ?? []
        guard ids.count == set.files else { throw BenchFailure.failed("ours: A lists \(ids.count) items in \(set.name)") }
        let reversed = Array(ids.reversed())
        var commandCPU = 0.0
        let nodeCPU = ProcessProbe.cpuSeconds(a.pid) ?? 0
        let batch = try Stopwatch.time {
            commandCPU = try a.command(["move", "--at", "0", "--stdin"], input: reversed.joined(separator: "\n") + "\n").cpu
            try b.waitForItems(reversed, in: set.name)
        }
        record("moves.batch.seconds", batch.seconds)
        record("moves.batch.cpuSeconds", commandCPU + (ProcessProbe.cpuSeconds(a.pid) ?? 0) - nodeCPU)
        // Each item of the reversed order moved to the front in turn: the original order again.
        commandCPU = 0
        let nodeCPUSeparate = ProcessProbe.cpuSeconds(a.pid) ?? 0
        let separate = try Stopwatch.time {
            for id in reversed { commandCPU += try a.command(["move", id, "--at", "0"]).cpu }
            try b.waitForItems(ids, in: set.name)
        }
        record("moves.separate.seconds", separate.seconds)
        record("moves.separate.cpuSeconds", commandCPU + (ProcessProbe.cpuSeconds(a.pid) ?? 0) - nodeCPUSeparate)
    }

    /// The CPU of both nodes, connected and idle, over `idleSeconds`, after a settling spell.
    private func idle(_ a: GalleryPeer, _ b: GalleryPeer) throws {
        note("idle for \(options.idleSeconds) s")
        results.record("idle.cpuPercent", .ours, repetition: repetition, try IdleCPU.measure(pids: [a.pid, b.pid], seconds: options.idleSeconds))
    }
}

/// The receiver after a drag: waits until its thread count is back where it was before the drag
/// (transfer stages and command threads end after an idle spell), at most 20 s, then reads its
/// resident size and the anonymous part of it.
enum ReceiverSettling {
    static func wait(pid: Int32, threadsBefore: Int) -> (resident: Int, anonymous: Int, seconds: Double) {
        let timed = Stopwatch.time {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, (ProcessProbe.threads(pid) ?? 0) > threadsBefore { usleep(50_000) }
            // The threads' stacks and the last buffers go when the threads end: a moment more.
            usleep(500_000)
        }
        return (ProcessProbe.residentBytes(pid) ?? 0, ProcessProbe.anonymousResidentBytes(pid) ?? 0, timed.seconds)
    }
}

/// The CPU of idle processes.
enum IdleCPU {
    /// Lets the processes settle for 5 s, then returns their CPU together over `seconds`, as a
    /// percentage of one core.
    static func measure(pids: [Int32], seconds: Int) throws -> Double {
        sleep(5)
        let before = pids.map { ProcessProbe.cpuSeconds($0) }
        sleep(UInt32(seconds))
        let after = pids.map { ProcessProbe.cpuSeconds($0) }
        var total = 0.0
        for (start, end) in zip(before, after) {
            guard let start, let end else { throw BenchFailure.failed("idle: a node ended during the idle measurement") }
            total += end - start
        }
        return total / Double(seconds) * 100
    }
}
