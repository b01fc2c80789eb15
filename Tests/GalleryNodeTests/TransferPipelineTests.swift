import Foundation
import GalleryCrypto
@testable import GalleryNode
@testable import GalleryStorage
import Testing

extension NodeSuites.TransferTests {
    @Test("odd chunk and fetch sizes with a stage backlog of one fetch: every byte arrives in order, each blob verifies and equals its source")
    func oddSizesAndBackpressure() throws {
        let original = TransferManager.tuning.withLock { $0 }
        // Chunks of a prime size, three per fetch, and the next fetch held back whenever the stage
        // is more than one fetch behind (the backpressure path taken on every busy moment).
        TransferManager.tuning.withLock { $0 = TransferTuning(chunkLength: 10_007, chunksPerFetch: 3, backlogBytes: 1) }
        defer { TransferManager.tuning.withLock { $0 = original } }
        let pair = try Pair()
        let transfers = try #require(pair.bob.transfers)
        #expect(transfers.chunkLength == 10_007 && transfers.requestLength == 30_021 && transfers.backlogBytes == 30_021)
        let sizes = [1, 10_007, 30_021, 30_022, (3 << 20) + 5]
        let blobs = sizes.enumerated().map { index, size in Self.random(size, seed: 40 + UInt64(index)) }
        let items = try blobs.enumerated().map { index, bytes in try pair.add(bytes, title: "odd-\(index)") }
        let placeholders = try pair.drop(items)
        #expect(pair.waitForCommits(placeholders))
        let store = try #require(pair.bob.configuration.blobs as? BlobStore)
        for bytes in blobs {
            let hash = SHA256.hex(SHA256.hash(bytes))
            #expect(try store.read(hash, offset: 0, length: bytes.count) == bytes, "\(bytes.count) bytes")
        }
    }
}
