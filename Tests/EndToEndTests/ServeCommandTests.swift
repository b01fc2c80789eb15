import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryTestSupport
import Testing

/// `gallery serve` as real processes: durable op log, restart after kill -9, torn tails, bad usage.
@Suite("gallery serve", .serialized)
struct ServeCommandTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func peer(_ name: String, secret: [UInt8], connectingTo endpoint: Endpoint) throws -> SyncNode {
        // A member of a version 4 space: its ops are signed under the replica ID bound to its key.
        var configuration = NodeConfiguration(
            name: name, secret: secret, listen: nil, heartbeatInterval: .milliseconds(200),
            reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), log: .silent)
        configuration.replicaSalt = UInt64.random(in: 1...UInt64.max)
        let replica = ReplicaBinding(secret: secret, nodeKey: configuration.staticKey).replicaID(salt: configuration.replicaSalt!)
        let node = SyncNode(configuration: configuration, replica: Replica(id: replica))
        try node.start()
        node.keepConnected(to: endpoint)
        return node
    }

    @Test("Every op a node relayed survives kill -9; the replica ID survives restarts")
    func killNineKeepsRelayedOps() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServeProcess([directory.path, "--name", "srv"])
        let endpoint = try #require(first.endpoint, "no listening line: \(first.standardError)")
        let secret = Array(try Data(contentsOf: directory.appendingPathComponent("secret")))
        #expect(secret.count == 32)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("secret").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let replicaBefore = try String(contentsOf: directory.appendingPathComponent("replica"), encoding: .utf8)

        let writer = try peer("writer", secret: secret, connectingTo: endpoint)
        let watcher = try peer("watcher", secret: secret, connectingTo: endpoint)
        defer { writer.stop(); watcher.stop() }
        #expect(writer.wait(timeout: .seconds(20)) { $0.hasGallery("srv") })
        var random = SeededGenerator(seed: 9)
        for index in 0..<200 {
            try writer.perform { replica in
                let count = try replica.count(in: "srv")
                try replica.insert([.titled("w\(index)")], into: "srv", at: Int.random(in: 0...count, using: &random))
            }
        }
        // The server writes and syncs ops before it relays them: what the watcher got is durable.
        let written = writer.read { $0.version }
        #expect(watcher.wait(timeout: .seconds(20)) { $0.version.includes(written) })
        #expect(first.stop(signal: SIGKILL) != 0)

        let second = try ServeProcess([directory.path, "--name", "srv"])
        defer { #expect(second.stop() == 0) }
        let restarted = try #require(second.endpoint, "no listening line: \(second.standardError)")
        #expect(try String(contentsOf: directory.appendingPathComponent("replica"), encoding: .utf8) == replicaBefore)
        let reader = try peer("reader", secret: secret, connectingTo: restarted)
        defer { reader.stop() }
        let seen = watcher.read { $0.version }
        #expect(reader.wait(timeout: .seconds(20)) { $0.version.includes(seen) })
        let titles = { (node: SyncNode) in node.read { ((try? $0.items(in: "srv")) ?? []).map(\.title) } }
        #expect(titles(reader) == titles(watcher))
        #expect(titles(reader).count == 200)
    }

    @Test("A torn tail of the op log is cut at restart and reported; the node serves on")
    func tornTailIsRepaired() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServeProcess([directory.path])
        #expect(first.endpoint != nil)
        #expect(first.stop() == 0)
        let log = try FileHandle(forWritingTo: directory.appendingPathComponent("oplog"))
        try log.seekToEnd()
        try log.write(contentsOf: Data([0x40, 0x00, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02]))
        try log.close()

        let second = try ServeProcess([directory.path])
        defer { #expect(second.stop() == 0) }
        let endpoint = try #require(second.endpoint, "no listening line: \(second.standardError)")
        #expect(second.standardError.contains("dropped 10 bytes"), "\(second.standardError)")
        let secret = Array(try Data(contentsOf: directory.appendingPathComponent("secret")))
        let reader = try peer("reader", secret: secret, connectingTo: endpoint)
        defer { reader.stop() }
        #expect(reader.wait(timeout: .seconds(20)) { $0.hasGallery(directory.lastPathComponent) })
    }

    @Test("A damaged snapshot is reported on stderr and ignored; the node serves what its op log holds")
    func damagedSnapshotIsReported() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServeProcess([directory.path])
        #expect(first.endpoint != nil)
        #expect(first.stop() == 0)
        try Data("GSSN garbage".utf8).write(to: directory.appendingPathComponent("snapshot"))

        let second = try ServeProcess([directory.path])
        defer { #expect(second.stop() == 0) }
        let endpoint = try #require(second.endpoint, "no listening line: \(second.standardError)")
        #expect(second.standardError.contains("gallery: snapshot: "), "\(second.standardError)")
        #expect(second.standardError.contains("rebuilding from the op files"), "\(second.standardError)")
        let secret = Array(try Data(contentsOf: directory.appendingPathComponent("secret")))
        let reader = try peer("reader", secret: secret, connectingTo: endpoint)
        defer { reader.stop() }
        #expect(reader.wait(timeout: .seconds(20)) { $0.hasGallery(directory.lastPathComponent) })
    }

    @Test("A second node on the same directory is refused")
    func secondNodeIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServeProcess([directory.path])
        defer { first.stop() }
        #expect(first.endpoint != nil)
        let result = try GalleryProcess.run(["serve", directory.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("already serving"))
    }

    @Test("Bad serve arguments: a one-line message, the usage, exit 64", arguments: [
        ["serve"], ["serve", "/tmp/x", "--listen", "nope"], ["serve", "/tmp/x", "--frobnicate"],
        ["serve", "/tmp/x", "/tmp/y"], ["serve", "/tmp/x", "--peer"],
    ])
    func badArguments(arguments: [String]) throws {
        let result = try GalleryProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("gallery: "))
        #expect(result.stderr.contains("usage: gallery serve"))
    }
}
