@testable import GalleryNode
import GalleryWire
import Testing

/// What `status` says of the pictures (`NodePolicies.storageStatus(of:holds:…)`), without a node:
/// bytes held, and the pictures no reachable node holds, named by their adder when it is offline.
@Suite struct StorageStatusTests {
    @Test func heldBytesAndUnavailablePicturesWithTheirReasons() {
        let policies = NodePolicies(configuration: NodeConfiguration(name: "a", secret: Array("status".utf8), log: .silent))
        let items = [
            NodePolicies.CountedItem(id: "1@a", adder: "a", hash: "h1", size: 100),
            NodePolicies.CountedItem(id: "2@a", adder: "a", hash: "h1", size: 100),
            NodePolicies.CountedItem(id: "3@b", adder: "b", hash: "h2", size: 50),
            NodePolicies.CountedItem(id: "4@c", adder: "c", hash: "h3", size: 70),
            NodePolicies.CountedItem(id: "5@d", adder: "d", hash: "h4", size: 30),
        ]
        var asked: [[String]] = []
        let status = policies.storageStatus(
            of: items, holds: { $0 == "h1" }, thumbnails: nil,
            holders: { hashes in
                asked.append(hashes)
                return ["h4": ["peer d"]]
            },
            offlineName: { adder in adder == "b" ? "bob" : nil })
        #expect(asked == [["h2", "h3", "h4"]], "only the originals not held, once, sorted")
        #expect(status.heldBytes == 100 && status.keptBytes == 100 && status.cachedBytes == 0, "one original counted once")
        #expect(status.unavailableCount == 2)
        #expect(status.unavailable.map(\.item) == ["3@b", "4@c"])
        #expect(status.unavailable.map(\.reason) == ["on bob, offline", "no connected peer holds the original"])
        #expect(status.thumbnailBytes == 0 && status.noThumbnailCount == 0)
    }
}
