import Foundation
@testable import GalleryHost
import GalleryCrypto
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GallerySimulation
@testable import GalleryStorage
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// Received blobs stored in durable batches (`TransferManager+DurableBatch`): many blobs per
    /// flush, and never a placeholder committed before its blob is durable.
    @Suite("Durable batches of received blobs")
    struct DurableBlobBatchStoreTests {
        /// A node's blob store that records each batch it is asked to store and checks, before
        /// storing it, that no placeholder of its blobs is committed yet; the first batch waits
        /// until a few more blobs are verified behind it, so that the next one holds several.
        final class BatchRecordingStore: BlobSource {
            let store: BlobStore
            let batches = Mutex<[[String]]>([])
            let committedEarly = Mutex<[String]>([])
            /// Which of these hashes have a placeholder already committed (set once the drop is made).
            let committedAmong = Mutex<(@Sendable ([String]) -> [String])?>(nil)
            /// How many verified blobs wait behind the batch being stored (set once the node exists).
            let waiting = Mutex<(@Sendable () -> Int)?>(nil)

            init(directory: URL) throws {
                store = try BlobStore(directory: directory)
            }

            var transferRecords: any TransferRecords { store.transferRecords }
            func contains(_ hash: String) -> Bool { store.contains(hash) }
            func makeWriter(expecting hash: String, size: Int) throws(StorageError) -> BlobWriter {
                try store.makeWriter(expecting: hash, size: size)
            }
            func openForReading(_ hash: String) throws(StorageError) -> BlobFile { try store.openForReading(hash) }
            func remove(_ hash: String) throws(StorageError) { try store.remove(hash) }
            func put(contentsOf source: URL) throws(StorageError) -> (hash: String, size: Int) { try store.put(contentsOf: source) }

            func store(verified writers: [any BlobSink]) throws(StorageError) {
                let hashes = writers.map(\.hash)
                let first = batches.withLock { $0.isEmpty }
                if first, let waiting = waiting.withLock({ $0 }) {
                    let deadline = ContinuousClock.now + .seconds(30)
                    while waiting() < 3 && ContinuousClock.now < deadline { usleep(2_000) }
                }
                if let committedAmong = committedAmong.withLock({ $0 }) {
                    let early = committedAmong(hashes)
                    committedEarly.withLock { $0 += early }
                }
                batches.withLock { $0.append(hashes) }
                try store.install(verified: writers.compactMap { $0 as? BlobWriter })
            }
        }

        @Test("a drag of 40 items stores its blobs in fewer flushes than blobs, one batch holding several, none committed before stored")
        func blobsStoredInBatches() throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-blob-batch-\(UUID().uuidString)")
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
            let bobStore = try BatchRecordingStore(directory: bobDirectory)
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

            let count = 40
            var drafts: [ItemDraft] = []
            var hashes: [String] = []
            for index in 0..<count {
                let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index &* 11 &+ 3) } + [UInt8(index)]
                let hash = try aliceStore.put(bytes)
                hashes.append(hash)
                drafts.append(ItemDraft(fields: [.title: .text("p\(index)"), .contentHash: .text(hash), .byteSize: .integer(Int64(bytes.count))]))
            }
            let inserted = try alice.perform { try $0.insert(drafts, into: "alice", at: 0) }
            let ids = (0..<count).map { inserted.id.advanced(by: $0) }
            #expect(bob.wait(timeout: .seconds(30)) { replica in ids.allSatisfy { replica.item($0) != nil } })

            let manager = try #require(bob.transfers)
            bobStore.waiting.withLock { $0 = { manager.verifiedLock.withLock { manager.verifiedBlobs.count } } }
            let drops = try Drop.perform(DragRequest(items: ids.map { .item(.id($0)) }, gallery: "bob"), on: bob)
            let placeholders = drops.map { OpID($0.item)! }
            #expect(placeholders.count == count)
            let placeholderOf = Dictionary(uniqueKeysWithValues: zip(hashes, placeholders))
            bobStore.committedAmong.withLock {
                $0 = { [weak bob] batch in
                    bob?.read { replica in batch.filter { hash in placeholderOf[hash].flatMap { replica.item($0)?.state } == .ready } } ?? []
                }
            }
            #expect(bob.wait(timeout: .seconds(120)) { replica in placeholders.allSatisfy { replica.item($0)?.state == .ready } })

            let batches = bobStore.batches.withLock { $0 }
            #expect(bobStore.committedEarly.withLock { $0 }.isEmpty, "committed before their blobs were stored")
            #expect(Set(batches.joined()) == Set(hashes), "every blob stored once in a batch")
            #expect(batches.joined().count == count)
            #expect(batches.count < count, "\(batches.count) flushes for \(count) blobs")
            #expect(batches.map(\.count).max() ?? 0 >= 3, "batch sizes \(batches.map(\.count))")
            #expect(manager.durableBlobBatches.blobs == count)
            for hash in hashes {
                let bytes = try bobStore.store.read(hash, offset: 0, length: 10_000)
                #expect(SHA256.hex(SHA256.hash(bytes)) == hash)
            }
        }
    }
}
