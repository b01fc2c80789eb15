import Foundation
@testable import GalleryHost
import GalleryModel
@testable import GalleryNode
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

extension NodeSuites {
    /// `GalleryServer` checkpoints: taken in the background and at stop, then a start from the
    /// snapshot that still serves a new peer every op.
    @Suite("Server checkpoints")
    struct ServerCheckpointTests {
        /// Runs random local commands on a node: inserts, moves, updates, deletes, commits.
        private func edit(_ node: SyncNode, commands: Int, seed: UInt64) throws {
            var generator = SeededGenerator(seed: seed)
            try node.perform { try $0.createGallery("second") }
            for step in 0..<commands {
                let choice = Int.random(in: 0..<10, using: &generator)
                try node.perform { replica in
                    let gallery = replica.galleries.randomElement(using: &generator)!
                    let count = try replica.count(in: gallery)
                    if count < 5 || choice < 5 {
                        let drafts: [ItemDraft] = choice % 2 == 0 ? [.titled("i\(step)")] : [.placeholder("p\(step)"), .titled("j\(step)")]
                        try replica.insert(drafts, into: gallery, at: Int.random(in: 0...count, using: &generator))
                        return
                    }
                    let item = try replica.item(at: Int.random(in: 0..<count, using: &generator), in: gallery)
                    switch choice {
                    case 5, 6:
                        let target = replica.galleries.randomElement(using: &generator)!
                        let size = try replica.count(in: target) - (target == gallery ? 1 : 0)
                        try replica.move(item.id, to: target, at: Int.random(in: 0...size, using: &generator))
                    case 7:
                        try replica.update(item.id, .url, to: .text("https://example.org/\(step)"))
                    case 8 where item.state == .placeholder:
                        try replica.commit(item.id)
                    default:
                        try replica.delete(item.id)
                    }
                }
            }
        }

        /// Waits (bounded) until a file exists.
        private func waitForFile(_ url: URL, timeout: Duration) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if FileManager.default.fileExists(atPath: url.path) { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return FileManager.default.fileExists(atPath: url.path)
        }

        @Test("Checkpoints in the background and at stop; the restart loads the snapshot, replays nothing, makes new op IDs, and a new peer gets every op")
        func restartFromSnapshotServesCatchUp() throws {
            try StorageFixtures.withScratchDirectory { dir in
                let files = NodeDirectory(url: dir)
                let policy = CheckpointPolicy(every: 300, atStopAfter: 1)
                let server = try GalleryServer(directory: dir, name: "srv", log: .silent, checkpoints: policy)
                try server.start()
                try edit(server.node, commands: 400, seed: 61)
                // More than `every` ops were stored: a checkpoint runs in the background.
                #expect(waitForFile(files.snapshot, timeout: .seconds(30)), "no background checkpoint")
                try edit(server.node, commands: 100, seed: 62)
                let before = server.node.read { $0 }
                server.stop()

                // The stop's checkpoint left every op in the compact file and none in the log.
                let (log, logOps, _) = try OpLogFile.open(at: files.opLog)
                #expect(logOps.isEmpty)
                try log.close()
                let (compact, compactOps, _) = try OpLogFile.open(at: files.compactLog, format: .blocks, skipping: 0)
                #expect(compactOps == before.ops)
                try compact.close()

                let restarted = try GalleryServer(directory: dir, name: "srv", log: .silent, checkpoints: policy)
                defer { restarted.stop() }
                #expect(restarted.startup.snapshotOps == before.opCount)
                #expect(restarted.startup.replayedOps == 0)
                #expect(restarted.startup.notes.isEmpty)
                let endpoint = try #require(try restarted.start())
                let same = restarted.node.read { $0.encodedState() } == before.encodedState()
                #expect(same, "the restarted replica differs")

                let secret = Array(try Data(contentsOf: files.secret))
                let peer = SyncNode(
                    configuration: NodeConfiguration(
                        name: "fresh", secret: secret, listen: nil, heartbeatInterval: .milliseconds(200),
                        reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), log: .silent),
                    replica: Replica(id: ReplicaID(deriving: "fresh-\(UUID().uuidString)")))
                try peer.start()
                defer { peer.stop() }
                peer.keepConnected(to: endpoint)
                #expect(peer.wait(timeout: .seconds(30)) { $0.version.includes(before.version) })
                #expect(peer.read { StorageFixtures.view($0) } == StorageFixtures.view(before))
                #expect(peer.read { $0.opCount } == before.opCount)

                let next = try restarted.node.perform { try $0.createGallery("after restart") }
                #expect(!before.contains(next.id) && next.id.counter > before.lamportClock)
                #expect(peer.wait(timeout: .seconds(30)) { $0.contains(next.id) })
            }
        }
    }
}
