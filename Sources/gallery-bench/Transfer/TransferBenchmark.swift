import Foundation
import GalleryCrypto
import GalleryModel
import GalleryNode
import GalleryStorage
import Synchronization

/// `gallery-bench transfer`: drag and drop between two nodes on loopback.
///
/// Prints one JSON line per workload:
/// - `loopback`: plain TCP over 127.0.0.1, 256 MiB in 256 KiB writes (the ceiling of the network);
/// - `sha256`: our `SHA256` over the same 256 MiB in 256 KiB updates (the ceiling of a transfer,
///   which hashes every chunk as it arrives), with the CPU time of the hashing thread: measured
///   right before and right after the transfer (`secondsBefore`, `secondsAfter`), the figures are
///   the mean of the two;
/// - `transfer`: one 256 MiB blob dragged from A to B, from the `drag` sent to B until B has
///   committed the placeholder (fetch, write, hash, fsyncs, verification, install, commit), with
///   its rate as a fraction of the two above (`ofSHA256`, `ofLoopback`), the CPU seconds of all
///   threads of the process meanwhile (`cpuSeconds`, both nodes) and of the busiest one (B's reader
///   of A's connection, which decodes, writes and hashes each chunk), and `sha256CPUOfBusiestThread`:
///   the `sha256` workload's CPU time over the busiest thread's, the share of the hash in the
///   thread that bounds the transfer, which a busy shared machine distorts less than `ofSHA256`;
/// - `transfer-sealed-vs-unsealed`: the same 256 MiB drag on fresh node pairs, over a sealed link
///   and over one whose records are left unsealed on both ends (everything else the same),
///   alternated three times: the best rate of each and their ratio (what the encryption costs);
/// - `drop-latency`: 200 drags of 1 MiB images one after the other: the control round trip of a
///   command that does nothing (`galleries`), then from sending each `drag` to its answer, to A
///   applying B's placeholder, and to B committing it (p50 and p99, milliseconds);
/// - `drop-latency-during-transfer`: drags of 1 MiB images one after the other while a 256 MiB
///   drag runs between the same nodes: answer and placeholder on A (p50 and p99), for the drags
///   sent before the big one was committed;
/// - `concurrent-drags`: 100 drags of 1 MiB images sent at once, each on its own connection and
///   thread: the time until B has committed all of them (`seconds`), until the last drag was
///   answered, until the first commit, and the median commit.
///
/// Both nodes are `GalleryServer`s in this process with durable op logs and blob stores in a
/// temporary directory (so every op and blob is fsynced, as with `gallery serve`).
enum TransferBenchmark {
    /// The blob of the throughput workload, and the bytes of `loopback` and `sha256` (256 MiB).
    static let blobByteCount = 256 << 20
    /// The size of loopback writes and hash updates (256 KiB; a transfer's chunks are
    /// `TransferManager.chunkLength`).
    static let chunkByteCount = 256 << 10
    /// The size of each image of the latency workloads (1 MiB).
    static let imageByteCount = 1 << 20
    static let latencyDrags = 200
    static let concurrentDrags = 100
    /// Rounds of the sealed / unsealed comparison (each a drag of each kind, alternated).
    static let sealingRounds = 3

    /// Runs the workloads and returns their JSON lines.
    static func run() throws -> [String] {
        var lines: [String] = []
        let nodes = try TransferNodes()
        defer { nodes.stop() }
        do {
            let blob = image(byteCount: blobByteCount, seed: 0x7A4_5F3)
            let loopback = try LoopbackThroughput.measure(byteCount: blobByteCount, chunkByteCount: chunkByteCount)
            lines.append(rateLine("loopback", seconds: loopback))
            _ = sha256(blob[..<chunkByteCount])
            let before = timedSHA256(blob)
            let (transfer, cpu) = try throughput(blob, digest: before.digest, nodes: nodes)
            let after = timedSHA256(blob)
            // The machine's load drifts: the transfer is compared with the mean of the two.
            let sha = (seconds: (before.seconds + after.seconds) / 2, cpu: (before.cpu + after.cpu) / 2)
            lines.append(rateLine("sha256", seconds: sha.seconds, extra: [
                ("cpuSeconds", sha.cpu), ("secondsBefore", before.seconds), ("secondsAfter", after.seconds),
            ]))
            lines.append(rateLine("transfer", seconds: transfer, extra: [
                ("ofSHA256", sha.seconds / transfer), ("ofLoopback", loopback / transfer),
                ("cpuSeconds", cpu?.all), ("busiestThreadCPUSeconds", cpu?.thread),
                ("sha256CPUOfBusiestThread", cpu.map { sha.cpu / $0.thread }),
            ]))
        }
        lines.append(try sealedAgainstUnsealed())
        lines.append(try dropLatency(nodes))
        lines.append(try dropLatencyDuringTransfer(nodes))
        lines.append(try concurrent(nodes))
        return lines
    }

    /// `transfer --sweep`: the 256 MiB drag with each chunk size and chunks per fetch, on fresh
    /// nodes each, against loopback measured right before each; one line per setting.
    static func sweep() throws -> [String] {
        var lines: [String] = []
        let blob = image(byteCount: blobByteCount, seed: 0x7A4_5F3)
        let digest = SHA256.hex(sha256(blob[...]))
        let settings: [(chunk: Int, perFetch: Int)] = [
            (64 << 10, 1), (64 << 10, 4), (64 << 10, 16), (256 << 10, 1), (256 << 10, 2), (256 << 10, 4), (256 << 10, 8),
            (256 << 10, 16), (1 << 20, 1), (1 << 20, 2), (1 << 20, 4), (1 << 20, 8),
        ]
        let original = TransferManager.tuning.withLock { $0 }
        defer { TransferManager.tuning.withLock { $0 = original } }
        for setting in settings {
            TransferManager.tuning.withLock {
                $0 = TransferTuning(chunkLength: setting.chunk, chunksPerFetch: setting.perFetch, backlogBytes: max(4 << 20, 2 * setting.chunk * setting.perFetch))
            }
            let nodes = try TransferNodes()
            defer { nodes.stop() }
            let loopback = try LoopbackThroughput.measure(byteCount: blobByteCount, chunkByteCount: chunkByteCount)
            let (seconds, cpu) = try throughput(blob, digest: digest, nodes: nodes)
            lines.append(rateLine("transfer-sweep", seconds: seconds, extra: [
                ("chunkBytes", Double(setting.chunk)), ("chunksPerFetch", Double(setting.perFetch)),
                ("bytesPerFetch", Double(setting.chunk * setting.perFetch)), ("ofLoopback", loopback / seconds),
                ("loopbackBytesPerSecond", Double(blobByteCount) / loopback), ("cpuSeconds", cpu?.all),
            ]))
        }
        return lines
    }

    /// Drags of 1 MiB images one after the other while a 256 MiB drag runs between the same two
    /// nodes: the drop latency (answer on B, placeholder on A) of those sent before the big one
    /// was committed.
    private static func dropLatencyDuringTransfer(_ nodes: TransferNodes) throws -> String {
        let big = try nodes.addImages([image(byteCount: blobByteCount, seed: 0xB16)], titled: "background")[0]
        let items = try nodes.addImages((0..<100).map { image(byteCount: imageByteCount, seed: 50_000 + UInt64($0)) }, titled: "during")
        let bigPlaceholder = try nodes.drag(big)
        var answered: [Double] = [], onSource: [Double] = []
        var placeholders: [OpID] = []
        for item in items {
            if nodes.sink.node.read({ $0.item(bigPlaceholder)?.state == .ready }) { break }
            let start = DispatchTime.now().uptimeNanoseconds
            let placeholder = try nodes.drag(item)
            let answer = DispatchTime.now().uptimeNanoseconds
            guard let seen = nodes.placeholdersOnSource.time(of: placeholder) else {
                throw BenchFailure.failed("drop latency during a transfer: the placeholder of \(item) did not reach A")
            }
            answered.append(milliseconds(answer - start))
            onSource.append(milliseconds(seen - start))
            placeholders.append(placeholder)
        }
        guard nodes.waitForCommits(placeholders + [bigPlaceholder], timeout: .seconds(120)) else {
            throw BenchFailure.failed("drop latency during a transfer: not every placeholder was committed")
        }
        guard !answered.isEmpty else { throw BenchFailure.failed("drop latency during a transfer: the big drag ended first") }
        return """
            {"workload": "drop-latency-during-transfer", "drags": \(answered.count), "bytesPerImage": \(imageByteCount), \
            "backgroundBytes": \(blobByteCount), \
            "answeredP50Ms": \(format(percentile(answered, 50))), "answeredP99Ms": \(format(percentile(answered, 99))), \
            "placeholderOnSourceP50Ms": \(format(percentile(onSource, 50))), \
            "placeholderOnSourceP99Ms": \(format(percentile(onSource, 99)))}
            """
    }

    // MARK: Workloads

    /// Drags the blob from A to B; returns the seconds from sending the drag to B's commit, and the
    /// CPU seconds of the busiest thread and of all threads meanwhile.
    private static func throughput(
        _ blob: [UInt8], digest: String, nodes: TransferNodes
    ) throws -> (seconds: Double, cpu: (thread: Double, all: Double)?) {
        guard let item = try nodes.addImages([blob], titled: "large").first else { throw BenchFailure.failed("transfer: no item") }
        guard nodes.source.node.read({ $0.item(item)?.contentHash }) == digest else {
            throw BenchFailure.failed("transfer: the blob's hash differs from the sha256 workload's digest \(digest)")
        }
        let threads = CPUTime.threads()
        let start = DispatchTime.now().uptimeNanoseconds
        let placeholder = try nodes.drag(item)
        guard nodes.waitForCommits([placeholder], timeout: .seconds(120)), let committed = nodes.commitsOnSink.time(of: placeholder) else {
            throw BenchFailure.failed("transfer: the 256 MiB placeholder was not committed within 120 s")
        }
        let cpu = CPUTime.busiest(from: threads, to: CPUTime.threads())
        // The writer verified the SHA-256 before installing the blob; it must now be in B's store, whole.
        guard (nodes.sink.node.configuration.blobs as? BlobStore)?.size(of: digest) == blobByteCount else {
            throw BenchFailure.failed("transfer: B's store does not hold the 256 MiB blob after the commit")
        }
        return (Double(committed - start) / 1e9, cpu)
    }

    /// The 256 MiB drag over a sealed link and over an unsealed one (the same nodes, pipeline and
    /// records, without the cipher), on fresh nodes each time, alternated `sealingRounds` times;
    /// the best of each, and sealed / unsealed (sealing should keep at least 0.7 of the throughput).
    private static func sealedAgainstUnsealed() throws -> String {
        let blob = image(byteCount: blobByteCount, seed: 0x5EA1)
        let digest = SHA256.hex(sha256(blob[...]))
        var best = (sealed: Double.infinity, unsealed: Double.infinity)
        for _ in 0..<sealingRounds {
            for sealed in [true, false] {
                let nodes = try TransferNodes(sealed: sealed)
                defer { nodes.stop() }
                let seconds = try throughput(blob, digest: digest, nodes: nodes).seconds
                if sealed { best.sealed = min(best.sealed, seconds) } else { best.unsealed = min(best.unsealed, seconds) }
            }
        }
        let rate = { (seconds: Double) in Double(blobByteCount) / seconds / 1e6 }
        return String(
            format: "{\"workload\": \"transfer-sealed-vs-unsealed\", \"bytes\": %d, \"rounds\": %d, "
                + "\"sealedMBPerSecond\": %.1f, \"unsealedMBPerSecond\": %.1f, \"sealedOfUnsealed\": %.3f}",
            blobByteCount, sealingRounds, rate(best.sealed), rate(best.unsealed), best.unsealed / best.sealed)
    }

    /// 200 drags of distinct 1 MiB images, one after the other.
    static func dropLatency(_ nodes: TransferNodes) throws -> String {
        let items = try nodes.addImages((0..<latencyDrags).map { image(byteCount: imageByteCount, seed: 1_000 + UInt64($0)) }, titled: "latency")
        try nodes.ping()
        var pings: [Double] = []
        for _ in 0..<latencyDrags {
            let time = try Stopwatch.time { try nodes.ping() }
            pings.append(time.seconds * 1e3)
        }
        var answered: [Double] = [], onSource: [Double] = [], committed: [Double] = []
        for item in items {
            let start = DispatchTime.now().uptimeNanoseconds
            let placeholder = try nodes.drag(item)
            let answer = DispatchTime.now().uptimeNanoseconds
            guard nodes.waitForCommits([placeholder], timeout: .seconds(30)),
                  nodes.source.node.wait(timeout: .seconds(10), until: { $0.item(placeholder) != nil }),
                  let seen = nodes.placeholdersOnSource.time(of: placeholder),
                  let commit = nodes.commitsOnSink.time(of: placeholder) else {
                throw BenchFailure.failed("drop latency: the drag of \(item) did not reach A or was not committed on B")
            }
            answered.append(milliseconds(answer - start))
            onSource.append(milliseconds(seen - start))
            committed.append(milliseconds(commit - start))
        }
        return """
            {"workload": "drop-latency", "drags": \(latencyDrags), "bytesPerImage": \(imageByteCount), \
            "controlRoundTripP50Ms": \(format(percentile(pings, 50))), \
            "answeredP50Ms": \(format(percentile(answered, 50))), "answeredP99Ms": \(format(percentile(answered, 99))), \
            "placeholderOnSourceP50Ms": \(format(percentile(onSource, 50))), \
            "placeholderOnSourceP99Ms": \(format(percentile(onSource, 99))), \
            "commitP50Ms": \(format(percentile(committed, 50))), "commitP99Ms": \(format(percentile(committed, 99)))}
            """
    }

    /// 100 drags of distinct 1 MiB images, sent at once from as many threads.
    private static func concurrent(_ nodes: TransferNodes) throws -> String {
        let items = try nodes.addImages(
            (0..<concurrentDrags).map { image(byteCount: imageByteCount, seed: 10_000 + UInt64($0)) }, titled: "concurrent")
        let placeholders = Mutex<[Int: Result<OpID, BenchFailure>]>([:])
        let lastAnswer = Atomic<UInt64>(0)
        let group = DispatchGroup()
        let start = DispatchTime.now().uptimeNanoseconds
        for (index, item) in items.enumerated() {
            group.enter()
            Thread.detachNewThread {
                let result = Result { () throws(BenchFailure) -> OpID in
                    do { return try nodes.drag(item) } catch let failure as BenchFailure { throw failure } catch {
                        throw BenchFailure.failed("concurrent drags: \(error.localizedDescription)")
                    }
                }
                lastAnswer.max(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                placeholders.withLock { $0[index] = result }
                group.leave()
            }
        }
        guard group.wait(timeout: .now() + 60) == .success else {
            throw BenchFailure.failed("concurrent drags: not every drag was answered within 60 s")
        }
        let ids = try placeholders.withLock { results in try (0..<concurrentDrags).map { try results[$0]!.get() } }
        guard nodes.waitForCommits(ids, timeout: .seconds(60)) else {
            let done = nodes.sink.node.read { replica in ids.filter { replica.item($0)?.state == .ready }.count }
            throw BenchFailure.failed("concurrent drags: \(done) of \(concurrentDrags) placeholders committed within 60 s")
        }
        let times = ids.map { milliseconds(nodes.commitsOnSink.time(of: $0)! - start) }
        return """
            {"workload": "concurrent-drags", "drags": \(concurrentDrags), "bytesPerImage": \(imageByteCount), \
            "committed": \(ids.count), "seconds": \(format(times.max()! / 1e3, digits: 3)), \
            "lastAnsweredMs": \(format(milliseconds(lastAnswer.load(ordering: .relaxed) - start))), \
            "firstCommitMs": \(format(times.min()!)), "commitP50Ms": \(format(percentile(times, 50)))}
            """
    }

    // MARK: Helpers

    /// `count` bytes that start like a PNG file (signature and IHDR of a 1x1 image), then
    /// pseudo-random bytes from a `SeededGenerator`.
    private static func image(byteCount: Int, seed: UInt64) -> [UInt8] {
        let header: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
        ]
        var bytes = [UInt8](repeating: 0, count: byteCount)
        bytes.withUnsafeMutableBytes { PseudoRandomBytes.fill($0, seed: seed) }
        bytes.replaceSubrange(0..<header.count, with: header)
        return bytes
    }

    /// Hashes `bytes` (as `sha256` does) and returns the digest (hex), the wall-clock seconds and
    /// the CPU seconds of this thread.
    private static func timedSHA256(_ bytes: [UInt8]) -> (digest: String, seconds: Double, cpu: Double) {
        let cpu = CPUTime.currentThread()
        let timed = Stopwatch.time { SHA256.hex(sha256(bytes[...])) }
        return (timed.result, timed.seconds, CPUTime.currentThread() - cpu)
    }

    /// The SHA-256 of `bytes`, fed in chunks of `chunkByteCount` as a transfer feeds it.
    private static func sha256(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { raw in
            for start in stride(from: 0, to: raw.count, by: chunkByteCount) {
                hasher.update(UnsafeRawBufferPointer(rebasing: raw[start..<min(start + chunkByteCount, raw.count)]))
            }
        }
        return hasher.finalize()
    }

    /// `{"workload", "bytes", "seconds", "bytesPerSecond"}` for 256 MiB, then `extra` figures
    /// (nil: `null`).
    private static func rateLine(_ workload: String, seconds: Double, extra: [(String, Double?)] = []) -> String {
        let rate = seconds > 0 ? Double(blobByteCount) / seconds : 0
        var fields = [
            "\"workload\": \"\(workload)\"", "\"bytes\": \(blobByteCount)", "\"seconds\": \(format(seconds, digits: 6))",
            "\"bytesPerSecond\": \(Int(rate.rounded()))",
        ]
        fields += extra.map { "\"\($0.0)\": \($0.1.map { format($0, digits: 3) } ?? "null")" }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1e6
    }

    /// The `p`th percentile (nearest rank) of `values`.
    private static func percentile(_ values: [Double], _ p: Int) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, sorted.count * p / 100)]
    }

    private static func format(_ value: Double, digits: Int = 3) -> String {
        String(format: "%.\(digits)f", value)
    }
}
