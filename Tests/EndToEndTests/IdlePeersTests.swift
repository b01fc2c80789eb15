import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryTestSupport
import Synchronization
import Testing

/// What 200 connected, authenticated, idle peers cost a real `gallery serve` process: threads,
/// memory and CPU (Linux: read from /proc/PID).
@Suite("idle peers", .serialized)
struct IdlePeersTests {
    /// The process's threads.
    static func threadCount(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
    }

    /// The process's resident set, in bytes.
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
        return kilobytes << 10
    }

    /// The run time of each of the process's threads, in nanoseconds
    /// (`/proc/PID/task/TID/schedstat`).
    static func threadRunTimes(_ pid: Int32) -> [String: UInt64] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var times: [String: UInt64] = [:]
        for task in tasks {
            guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                  let nanoseconds = line.split(separator: " ").first.flatMap({ UInt64($0) }) else { continue }
            times[task] = nanoseconds
        }
        return times
    }

    /// The CPU time the process's threads used between two `threadRunTimes`, in seconds: to the
    /// nanosecond, where `/proc/PID/stat` counts 10 ms ticks (0.25% of a core over 4 s). A thread
    /// that ended in between is left out.
    static func cpuSeconds(from start: [String: UInt64], to end: [String: UInt64]) -> Double {
        let used = end.reduce(UInt64(0)) { total, thread in
            total + thread.value - min(start[thread.key] ?? 0, thread.value)
        }
        return Double(used) / 1e9
    }

    @Test("200 idle authenticated peers: at most 16 threads in the node, under 64 KiB each, under 2% of a core")
    func twoHundredIdlePeers() throws {
        #if os(Linux)
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("hub")
        let hub = try #require(space.process("hub"))
        let endpoint = try #require(space.address("hub"))
        let secret = try #require(FileManager.default.contents(atPath: space.directory("hub").appendingPathComponent("secret").path))
        let pid = hub.processID
        let threadsBefore = Self.threadCount(pid)
        let residentBefore = Self.residentBytes(pid)

        var peers: [RawPeer] = []
        for _ in 0..<200 {
            var peer = try RawPeer(connectingTo: endpoint, secret: Array(secret))
            // As `gallery serve` does: quiet liveness (protocol.md, section 10).
            peer.send(.features(.quietLiveness))
            peers.append(peer)
        }
        // The peers stay live: each sends a heartbeat every 20 s, as an idle node with quiet
        // liveness does; the hub takes 60 s of silence from them and sends them a heartbeat
        // after 20 s of its own quiet.
        let stop = Mutex(false)
        let heartbeats = DispatchSemaphore(value: 0)
        let streams = peers
        Thread.detachNewThread {
            // Sealing advances each peer's nonce: one copy, used by this thread only.
            var senders = streams
            while !stop.withLock({ $0 }) {
                for index in senders.indices { senders[index].send(.heartbeat) }
                for _ in 0..<200 where !stop.withLock({ $0 }) { usleep(100_000) }
            }
            heartbeats.signal()
        }
        defer {
            stop.withLock { $0 = true }
            heartbeats.wait()
            for peer in peers { peer.streams.close() }
        }
        func authenticatedPeers() -> Int {
            guard let status = try? space.gallery("hub", "status", "--json"),
                  let object = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
                  let listed = object["peers"] as? [[String: Any]] else { return 0 }
            return listed.filter { ($0["state"] as? String) != "handshaking" }.count
        }
        let connected = space.waitUntil(timeout: 10) { authenticatedPeers() == 200 }
        #expect(connected, "not every peer is live: \(hub.standardError.suffix(1_000))")
        // Settle, then measure an idle stretch.
        usleep(500_000)
        let threads = Self.threadCount(pid)
        let resident = Self.residentBytes(pid)
        // Three windows of 3 s, the median counts: one window that shares the 2 vCPUs with a burst
        // of other work (CI runs suites in parallel) does not decide.
        let windows = (0..<3).map { _ -> Double in
            let cpuStart = Self.threadRunTimes(pid)
            let wallStart = Date()
            usleep(3_000_000)
            return Self.cpuSeconds(from: cpuStart, to: Self.threadRunTimes(pid)) / Date().timeIntervalSince(wallStart)
        }
        let cpu = windows.sorted()[1]
        let perConnection = (resident - residentBefore) / 200
        print("idle peers: threads \(threadsBefore) -> \(threads); RSS \(residentBefore >> 10) KiB -> \(resident >> 10) KiB "
            + "(\(perConnection >> 10) KiB per connection); CPU \(String(format: "%.2f", cpu * 100))% of a core, median of "
            + windows.map { String(format: "%.2f%%", $0 * 100) }.joined(separator: ", ") + " over 3 s each")
        #expect(threads <= 16, "\(threads) threads with 200 peers")
        #expect(perConnection < 64 << 10, "\(perConnection) bytes per idle connection")
        // What an idle node does: a sealed heartbeat per link every 20 s at most (quiet
        // liveness), and a liveness pass ten times a second that looks only at the connections
        // due (`LivenessDeadlines`) and scans the sessions only when something changed
        // (`LivenessState.Look`). Debug build: 2.6-2.9% of a core with a heartbeat a second and
        // every session scanned each pass, 1.4-2.0% with the deadlines (BENCHMARKS.md, "Idle peers").
        #expect(cpu < 0.02, "\(cpu * 100)% of a core with 200 idle peers")
        #expect(hub.isRunning)
        #endif
    }
}
