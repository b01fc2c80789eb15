import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryTestSupport
import GalleryWire
import Synchronization
import Testing

/// A member that holds the space's secret, claims the oldest root of the relay tree and passes
/// nothing on, against four `gallery serve` processes (issue 26; protocol.md sections 11 and 13).
/// The hostile member runs in this process: a real `SyncNode` on TCP whose calendar runs a million
/// seconds behind (the oldest root wins) and which never sends `ops`, `ops_compact`, `ihave`,
/// `ihave_total` or `caught_up` (`NodeEnvironment.withheldFrames`).
@Suite("silent root across processes", .serialized)
struct SilentRootProcessTests {
    @Test("With a silent root that every node follows, ops made on one node reach a node two ring hops away by grafts, none waiting for the version exchange")
    func opsRouteAroundASilentRoot() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        let secret = try #require(FileManager.default.contents(atPath: space.directory("a").appendingPathComponent("secret").path))
        var configuration = NodeConfiguration(name: "hijacker", secret: Array(secret), peers: [try #require(space.address("a"))], log: .silent)
        var environment = NodeEnvironment.production
        environment.wallClock = { Date().timeIntervalSince1970 - 1_000_000 }
        environment.withheldFrames = [.ops, .opsCompact, .ihave, .ihaveTotal, .caughtUp]
        configuration.environment = environment
        let hijacker = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "silent root hijacker")))
        try hijacker.start()
        defer { hijacker.stop() }
        let root = try #require(hijacker.endpoint).description
        // A ring a-b-c-d-a, every node also dialing the hijacker first: their first catch-up
        // asks it, and it never answers.
        try space.start("b", peers: [root, "a"])
        try space.start("c", peers: [root, "b"])
        try space.start("d", peers: [root, "c", "a"])
        let hijackerReplica = ReplicaID(deriving: "silent root hijacker").description
        func treeRoot(_ name: String) -> String? {
            guard let status = try? space.gallery(name, "status", "--json"),
                  let object = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] else { return nil }
            return object["treeRoot"] as? String
        }
        let hijacked = space.waitUntil(timeout: 30) { ["a", "b", "c", "d"].allSatisfy { treeRoot($0) == hijackerReplica } }
        #expect(hijacked, "every node follows the silent root: \(["a", "b", "c", "d"].map { treeRoot($0) ?? "?" })")

        // c's changes as they happen, each line stamped when it is read.
        let watcher = try ServeProcess(["-C", space.directory("c").path, "watch", "--json"], serve: false)
        defer { _ = watcher.stop() }
        let seen = Mutex<[String: Date]>([:])
        let stop = Mutex(false)
        let names = (0..<16).map { "silent-root-\($0)" }
        let reader = Thread {
            while !stop.withLock({ $0 }) {
                let output = watcher.standardOutput
                let now = Date()
                seen.withLock { seen in
                    for name in names where seen[name] == nil && output.contains("\"\(name)\"") { seen[name] = now }
                }
                usleep(10_000)
            }
        }
        reader.start()
        defer { stop.withLock { $0 = true } }
        var made: [String: Date] = [:]
        for name in names {
            let result = try space.gallery("a", "new-gallery", name)
            #expect(result.status == 0, "\(result.stderr)")
            made[name] = Date()
            usleep(300_000)
        }
        let arrived = space.waitUntil(timeout: 30) { seen.withLock { $0.count } == names.count }
        #expect(arrived, "c saw \(seen.withLock { $0.count }) of \(names.count) galleries")
        let delays = names.compactMap { name in seen.withLock { $0[name] }.map { $0.timeIntervalSince(made[name]!) } }.sorted()
        print("silent root: delivery a -> c, seconds: \(delays.map { String(format: "%.2f", $0) }.joined(separator: " "))")
        // The simulator holds the promise of p99 <= 2 s on simulated time
        // (`SilentRootSimulationTests`). Here five processes share the machine with the rest of
        // the suite: the slowest of 16 ops took 0.9-1.3 s alone and 2.0 s in CI, against 5.5 to
        // 10.4 s when a stalled catch-up held the grafts back; the version exchange's 10 s would
        // be the bound without grafts.
        #expect((delays.last ?? .infinity) <= 5.0, "slowest delivery \(delays.last ?? -1) s")
    }
}
