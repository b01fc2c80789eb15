import Foundation
import GalleryCrypto
import GalleryModel
@testable import GalleryNode
@testable import GalleryStorage
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// Bytes on demand between in-process nodes on 127.0.0.1: a reader's request for bytes this node
    /// lacks is filled from a peer that holds them, verified; readers of one blob share one fetch; a
    /// holder sending other bytes is passed over; with no holder the answer is at once, with why.
    @Suite("Bytes on demand")
    struct DemandTests {
        /// Nodes with blob stores in a temporary folder, each in its own gallery; `bob` dials the others.
        final class Mesh: Sendable {
            let base: URL
            let nodes: [String: SyncNode]

            init(_ names: [String]) throws {
                let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-demand-\(UUID().uuidString)")
                self.base = base
                var nodes: [String: SyncNode] = [:]
                for name in names { nodes[name] = try Self.node(name, in: base) }
                self.nodes = nodes
                let bob = nodes["bob"]!
                for (name, node) in nodes where name != "bob" { bob.keepConnected(to: node.endpoint!) }
                #expect(bob.waitForPeers(timeout: .seconds(20)) { $0.count(where: { $0.state == .live }) == names.count - 1 })
            }

            /// A started node `name` with a blob store in `base/name`, in a gallery of its name.
            static func node(_ name: String, in base: URL) throws -> SyncNode {
                let directory = base.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let configuration = NodeConfiguration(
                    name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(200),
                    peerTimeout: .seconds(10), reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                    log: NodeLog { _ in }, blobs: try BlobStore(directory: directory))
                let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
                try node.start()
                try node.perform { try $0.createGallery(name) }
                return node
            }

            subscript(_ name: String) -> SyncNode { nodes[name]! }

            func store(_ name: String) -> BlobStore { self[name].configuration.blobs as! BlobStore }

            /// Adds an item on `name` naming `bytes` (stored there unless `stored` is false); returns
            /// the item once bob has it.
            func add(_ bytes: [UInt8], on name: String, stored: Bool = true) throws -> Item {
                let hash = stored ? try store(name).put(bytes) : SHA256.hex(SHA256.hash(bytes))
                let op = try self[name].perform { replica in
                    try replica.insert(
                        [ItemDraft(fields: [.title: .text("x"), .contentHash: .text(hash), .byteSize: .integer(Int64(bytes.count))])],
                        into: name, at: replica.count(in: name))
                }
                #expect(self["bob"].wait(timeout: .seconds(20)) { $0.item(op.id) != nil })
                return try #require(self["bob"].read { $0.item(op.id) })
            }

            /// Bytes bob received from `name` on their connection.
            func bytesReceivedByBob(from name: String) -> Int {
                self["bob"].peers.filter { $0.name == name }.map(\.bytesReceived).reduce(0, +)
            }

            deinit {
                for node in nodes.values { node.stop() }
                try? FileManager.default.removeItem(at: base)
            }
        }

        /// The answers of demands, as they come.
        final class Answers: Sendable {
            let results = Mutex<[Result<Void, DemandFailure>]>([])

            var answer: TransferManager.DemandAnswer {
                { result in self.results.withLock { $0.append(result) } }
            }

            /// Waits (at most `timeout`) for `count` answers; returns them.
            func wait(for count: Int, timeout: Duration = .seconds(60)) -> [Result<Void, DemandFailure>] {
                let deadline = ContinuousClock.now + timeout
                while ContinuousClock.now < deadline, results.withLock({ $0.count }) < count { usleep(1_000) }
                return results.withLock { $0 }
            }
        }

        static func random(_ count: Int, seed: UInt8) -> [UInt8] {
            var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
            return (0..<count).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
        }

        @Test("bytes a reader asks for come from the peer holding them, verified and stored; readers of one blob share one fetch")
        func fetchedOnce() throws {
            let mesh = try Mesh(["alice", "bob"])
            let bytes = Self.random(3 << 20, seed: 1)
            let item = try mesh.add(bytes, on: "alice")
            let hash = try #require(item.contentHash)
            #expect(!mesh.store("bob").contains(hash))
            let before = mesh.bytesReceivedByBob(from: "alice")
            let answers = Answers()
            for _ in 0..<4 {
                #expect(mesh["bob"].demandBytes(named: hash, answer: answers.answer))
            }
            let results = answers.wait(for: 4)
            #expect(results.count == 4 && results.allSatisfy { (try? $0.get()) != nil }, "\(results)")
            #expect(try mesh.store("bob").read(hash, offset: 0, length: bytes.count) == bytes)
            let received = mesh.bytesReceivedByBob(from: "alice") - before
            #expect(received >= bytes.count && received < 2 * bytes.count, "bob received \(received) bytes for one blob")
            // Held now: answered at once, nothing fetched.
            let again = Answers()
            #expect(mesh["bob"].demandBytes(named: hash, answer: again.answer))
            #expect(again.wait(for: 1, timeout: .seconds(1)).count == 1)
            #expect(mesh.bytesReceivedByBob(from: "alice") - before - received < 4_096)
            // A hash no item names is not fetched at all.
            #expect(!mesh["bob"].demandBytes(named: String(repeating: "0", count: 64)) { _ in })
        }

        @Test("a reader joins a drag already fetching the same bytes; cancelling the drag leaves the reader's fetch going")
        func readerOutlivesDrag() throws {
            let mesh = try Mesh(["alice", "bob"])
            let bytes = TransferTests.random(32 << 20, seed: 9)
            let item = try mesh.add(bytes, on: "alice")
            let hash = try #require(item.contentHash)
            let before = mesh.bytesReceivedByBob(from: "alice")
            let drops = try Drop.perform(DragRequest(items: [.item(.id(item.id))], gallery: "bob"), on: mesh["bob"])
            let placeholder = try #require(drops.first.flatMap { OpID($0.item) })
            let answers = Answers()
            #expect(mesh["bob"].demandBytes(named: hash, answer: answers.answer))
            try #require(mesh["bob"].transfers).cancel([placeholder])
            let results = answers.wait(for: 1)
            #expect(results.count == 1 && (try? results[0].get()) != nil, "\(results)")
            #expect(try mesh.store("bob").read(hash, offset: 0, length: bytes.count) == bytes)
            #expect(mesh["bob"].read { $0.item(placeholder)?.isDeleted } == true, "the cancelled placeholder is deleted")
            let received = mesh.bytesReceivedByBob(from: "alice") - before
            #expect(received >= bytes.count && received < 2 * bytes.count, "bob received \(received) bytes for one blob")
        }

        @Test("a holder whose bytes do not hash to the item's hash is passed over: another holder's verified bytes are stored")
        func mismatchTriesAnotherHolder() throws {
            let mesh = try Mesh(["alice", "bob", "carol"])
            let bytes = Self.random(600_000, seed: 2)
            // alice added the item (so she is asked first), but her stored copy rotted; carol holds the real bytes.
            let item = try mesh.add(bytes, on: "alice")
            let hash = try #require(item.contentHash)
            #expect(try mesh.store("carol").put(bytes) == hash)
            var rotten = bytes
            rotten[rotten.count / 2] ^= 0xFF
            let path = mesh.base.appendingPathComponent("alice/blobs/\(hash.prefix(2))/\(hash)")
            try FileManager.default.removeItem(at: path)
            try Data(rotten).write(to: path)
            try mesh["bob"].demandBytes(of: item)
            #expect(try mesh.store("bob").read(hash, offset: 0, length: bytes.count) == bytes)
            #expect(mesh.bytesReceivedByBob(from: "alice") >= bytes.count, "alice was asked first")
            #expect(mesh.bytesReceivedByBob(from: "carol") >= bytes.count)
        }

        @Test("with no holder the reader is answered at once with the reason: none connected holds them, or no peer is connected")
        func noHolderAnswersAtOnce() throws {
            let mesh = try Mesh(["alice", "bob"])
            // An item whose bytes no node holds (alice named them without storing them).
            let item = try mesh.add(Self.random(10_000, seed: 3), on: "alice", stored: false)
            var started = ContinuousClock.now
            #expect(throws: DemandFailure.notHeld) { try mesh["bob"].demandBytes(of: item) }
            #expect(ContinuousClock.now - started < .seconds(2), "answered after \(ContinuousClock.now - started)")
            // alice goes away: the answer says so, at once, and nothing waits.
            let held = try mesh.add(Self.random(10_000, seed: 4), on: "alice")
            mesh["alice"].stop()
            #expect(mesh["bob"].waitForPeers(timeout: .seconds(20)) { !$0.contains { $0.state == .live } })
            started = ContinuousClock.now
            // bob knows alice (she added the item) by name: the reason says where the bytes are.
            #expect(throws: DemandFailure.offline(holder: "alice", .noPeerConnected)) { try mesh["bob"].demandBytes(of: held) }
            #expect(ContinuousClock.now - started < .seconds(2), "answered after \(ContinuousClock.now - started)")
            // No download is left behind (a relay bob started for alice's first request ends too).
            let transfers = try #require(mesh["bob"].transfers)
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, !transfers.lock.withLock({ transfers.downloads.isEmpty }) { usleep(10_000) }
            #expect(transfers.lock.withLock { transfers.downloads.isEmpty })
        }
    }
}
