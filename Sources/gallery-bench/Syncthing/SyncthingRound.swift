import Foundation

/// One round of Syncthing in `gallery-bench syncthing` (see `SideBySideBenchmark`): two instances
/// on 127.0.0.1 that know each other, driven through their REST API; the same figures as
/// `OursRound`, under the same names.
struct SyncthingRound {
    let data: SideBySideData
    let options: SideBySideOptions
    let results: SideBySideResults
    let repetition: Int
    let scratch: URL

    private func note(_ text: String) {
        SideBySideLog.note("  \(text)")
    }

    private func record(_ figure: String, _ value: Double) {
        results.record(figure, .syncthing, repetition: repetition, value)
    }

    func run() throws {
        note("starting two instances")
        let a = try SyncthingNode(name: "a", home: scratch.appendingPathComponent("a"))
        defer { a.stop() }
        let b = try SyncthingNode(name: "b", home: scratch.appendingPathComponent("b"))
        defer { b.stop() }
        note("connecting them")
        try a.add(device: b)
        try b.add(device: a)
        try a.waitConnected(to: b)
        try b.waitConnected(to: a)

        _ = try scan(data.small, on: a, settling: b)
        let medium = try scan(data.medium, on: a, settling: b)
        try share(data.medium, scanSeconds: medium, from: a, to: b, receiverFigures: true)
        let large = try scan(data.large, on: a, settling: b)
        try share(data.large, scanSeconds: large, from: a, to: b, receiverFigures: false)
        let renamed = try renames(on: a, seenBy: b)
        defer { rename(data.medium, from: renamed, to: data.medium.names) }
        try idle(a, b)
    }

    /// The folder of `set` added on A (shared with nobody yet): the time until its first scan is
    /// over and every file is in A's database, and A's CPU meanwhile.
    /// With `--settle on`, first waits until both instances are idle (`Settle`).
    private func scan(_ set: SideBySideData.FileSet, on a: SyncthingNode, settling b: SyncthingNode) throws -> Double {
        note("first scan of \(set.name)")
        if options.settle { record("import.\(set.name).settleSeconds", Settle.quiet([a.pid, b.pid])) }
        SideBySideData.dropFromCache(set.theirs)
        let since = try a.lastEventID()
        let cpu = ProcessProbe.cpuSeconds(a.pid) ?? 0
        let timed = try Stopwatch.time {
            try a.addFolder(id: set.name, path: set.theirs, sharedWith: [])
            try a.waitScanned(folder: set.name, since: since, files: set.files)
        }
        record("import.\(set.name).seconds", timed.seconds)
        record("import.\(set.name).cpuSeconds", (ProcessProbe.cpuSeconds(a.pid) ?? 0) - cpu)
        return timed.seconds
    }

    /// The scanned folder of `set` shared with B (added on B into an empty folder, A's folder
    /// shared with B): the time until B's folder holds every file complete.
    private func share(_ set: SideBySideData.FileSet, scanSeconds: Double, from a: SyncthingNode, to b: SyncthingNode, receiverFigures: Bool) throws {
        note("\(set.name) shared with B")
        let destination = scratch.appendingPathComponent("b-\(set.name)")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        let names = Set(set.names)
        let threadsBefore = ProcessProbe.threads(b.pid) ?? 0
        let residentBefore = ProcessProbe.residentBytes(b.pid) ?? 0
        let anonymousBefore = ProcessProbe.anonymousResidentBytes(b.pid) ?? 0
        ProcessProbe.resetPeak(a.pid)
        ProcessProbe.resetPeak(b.pid)
        let sampler = ProcessSampler(b.pid)
        let timed = try Stopwatch.time {
            try b.addFolder(id: set.name, path: destination, sharedWith: [a])
            try a.share(folder: set.name, with: [b])
            let deadline = Date().addingTimeInterval(1_200)
            while !SideBySideData.holds(destination, names: names, bytes: set.bytes) {
                guard Date() < deadline else { throw BenchFailure.failed("syncthing: B did not receive \(set.name) in time") }
                usleep(10_000)
            }
        }
        let peak = sampler.stop()
        record("sync.\(set.name).seconds", timed.seconds)
        record("sync.\(set.name).MBps", Double(set.totalBytes) / timed.seconds / 1e6)
        record("sync.\(set.name).whole.seconds", scanSeconds + timed.seconds)
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

    /// Every file of the medium folder on A renamed (`rename(2)`, one per file), then a scan
    /// asked: the time until B's folder holds the new names and none of the old. Returns the new
    /// names (the round renames them back at its end).
    private func renames(on a: SyncthingNode, seenBy b: SyncthingNode) throws -> [String] {
        note("renames")
        let set = data.medium
        let renamed = set.names.map { "moved-\($0)" }
        let destination = scratch.appendingPathComponent("b-\(set.name)")
        let cpu = ProcessProbe.cpuSeconds(a.pid) ?? 0
        let timed = try Stopwatch.time {
            rename(set, from: set.names, to: renamed)
            try a.scan(folder: set.name)
            let names = Set(renamed)
            let deadline = Date().addingTimeInterval(600)
            while !SideBySideData.holds(destination, names: names, bytes: set.bytes) {
                guard Date() < deadline else { throw BenchFailure.failed("syncthing: B did not show the renames in time") }
                usleep(10_000)
            }
        }
        record("moves.renames.seconds", timed.seconds)
        record("moves.renames.cpuSeconds", (ProcessProbe.cpuSeconds(a.pid) ?? 0) - cpu)
        return renamed
    }

    private func rename(_ set: SideBySideData.FileSet, from old: [String], to new: [String]) {
        for (from, to) in zip(old, new) {
            _ = Foundation.rename(set.theirs.appendingPathComponent(from).path, set.theirs.appendingPathComponent(to).path)
        }
    }

    private func idle(_ a: SyncthingNode, _ b: SyncthingNode) throws {
        note("idle for \(options.idleSeconds) s")
        record("idle.cpuPercent", try IdleCPU.measure(pids: [a.pid, b.pid], seconds: options.idleSeconds))
    }
}
