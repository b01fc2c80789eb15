import Foundation
@testable import GalleryHost
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GallerySimulation
@testable import GalleryStorage
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// The transfer journal during a drag of many items: written when transfers begin and when the
    /// last one ends, not once per item that ends (which rewrote up to n records n times).
    @Suite("Transfer journal writes")
    struct TransferJournalWritesTests {
        /// The journal of a store, counting its writes and keeping the last records written.
        final class CountingRecords: TransferRecords {
            let inner: any TransferRecords
            let saves = Atomic<Int>(0)
            let lastCount = Mutex<Int?>(nil)

            init(_ inner: any TransferRecords) {
                self.inner = inner
            }

            var location: String { inner.location }
            func load() -> [Transfer] { inner.load() }

            func save(_ transfers: [Transfer]) throws {
                try inner.save(transfers)
                saves.add(1, ordering: .relaxed)
                lastCount.withLock { $0 = transfers.count }
            }
        }

        /// A node's blob store whose journal is counted; every other request goes to the store.
        final class CountedStore: BlobSource {
            let store: BlobStore
            let records: CountingRecords

            init(directory: URL) throws {
                store = try BlobStore(directory: directory)
                records = CountingRecords(store.transferRecords)
            }

            var transferRecords: any TransferRecords { records }
            func contains(_ hash: String) -> Bool { store.contains(hash) }
            func makeWriter(expecting hash: String, size: Int) throws(StorageError) -> BlobWriter {
                try store.makeWriter(expecting: hash, size: size)
            }
            func openForReading(_ hash: String) throws(StorageError) -> BlobFile { try store.openForReading(hash) }
            func remove(_ hash: String) throws(StorageError) { try store.remove(hash) }
            func put(contentsOf source: URL) throws(StorageError) -> (hash: String, size: Int) { try store.put(contentsOf: source) }
        }

        @Test("a drag of 60 items writes the journal a few times, not once per item, and leaves it empty")
        func dragWritesJournalFewTimes() throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-journal-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: base) }
            func configuration(_ name: String, blobs: any BlobSource) -> NodeConfiguration {
                NodeConfiguration(
                    name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(200),
                    peerTimeout: .seconds(10), reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                    log: NodeLog { _ in }, blobs: blobs)
            }
            let aliceDirectory = base.appendingPathComponent("alice")
            let bobDirectory = base.appendingPathComponent("bob")
            for directory in [aliceDirectory, bobDirectory] {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            let aliceStore = try BlobStore(directory: aliceDirectory)
            let bobStore = try CountedStore(directory: bobDirectory)
            let alice = SyncNode(configuration: configuration("alice", blobs: aliceStore), replica: Replica(id: ReplicaID(deriving: "alice")))
            let bob = SyncNode(configuration: configuration("bob", blobs: bobStore), replica: Replica(id: ReplicaID(deriving: "bob")))
            try alice.start()
            defer { alice.stop() }
            try bob.start()
            defer { bob.stop() }
            try alice.perform { try $0.createGallery("alice") }
            try bob.perform { try $0.createGallery("bob") }
            bob.keepConnected(to: alice.endpoint!)
            #expect(bob.waitForPeers(timeout: .seconds(20)) { $0.contains { $0.state == .live } })

            let count = 60
            var drafts: [ItemDraft] = []
            for index in 0..<count {
                let bytes = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7 &+ 1) } + [UInt8(index)]
                let hash = try aliceStore.put(bytes)
                drafts.append(ItemDraft(fields: [.title: .text("p\(index)"), .contentHash: .text(hash), .byteSize: .integer(Int64(bytes.count))]))
            }
            let inserted = try alice.perform { try $0.insert(drafts, into: "alice", at: 0) }
            let ids = (0..<count).map { inserted.id.advanced(by: $0) }
            #expect(bob.wait(timeout: .seconds(30)) { replica in ids.allSatisfy { replica.item($0) != nil } })
            let savesBefore = bobStore.records.saves.load(ordering: .relaxed)

            let drops = try Drop.perform(DragRequest(items: ids.map { .item(.id($0)) }, gallery: "bob"), on: bob)
            let placeholders = drops.map { OpID($0.item)! }
            #expect(placeholders.count == count)
            #expect(bob.wait(timeout: .seconds(120)) { replica in placeholders.allSatisfy { replica.item($0)?.state == .ready } })
            // The last transfer's end empties the journal (written by the transfer worker, after
            // the commit a moment ago).
            let deadline = ContinuousClock.now + .seconds(30)
            while bobStore.records.lastCount.withLock({ $0 }) != 0 && ContinuousClock.now < deadline {
                usleep(10_000)
            }
            #expect(bobStore.records.lastCount.withLock { $0 } == 0)
            #expect(bobStore.store.transferRecords.load().isEmpty)
            let saves = bobStore.records.saves.load(ordering: .relaxed) - savesBefore
            // One when the drop begins its transfers, one when the last ends; a little slack for
            // a plan that ends some before the drop's own write. Once per end would be ~60.
            #expect(saves >= 2)
            #expect(saves <= 6, "the journal was written \(saves) times for \(count) transfers")
        }
    }
}
