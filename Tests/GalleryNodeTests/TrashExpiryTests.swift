import Foundation
@testable import GalleryHost
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization
import Testing

/// The serving node's timer of the 30-day expiry (`TrashExpiry`), run sooner than a minute.
@Suite("Trash expiry timer")
struct TrashExpiryTests {
    @Test("The timer deletes for good what has been in the Trash for more than 30 days, and only that")
    func timerDeletes() throws {
        let node = SyncNode(
            configuration: NodeConfiguration(name: "node", secret: Array("trash expiry".utf8), log: .silent, persist: { _, _ in }),
            replica: Replica(id: ReplicaID(deriving: "node")))
        try node.perform { try $0.createGallery("node") }
        let urls = (0..<2).map { AddSource.url("https://example.org/\($0).png") }
        let ids = try AddImage.perform(AddRequest(sources: urls), defaultGallery: "node", on: node)
        let longAgo = TrashItems.now() - 31 * 24 * 3600 * 1000
        try node.perform { replica in
            try replica.trash(ids[0], at: longAgo)
            try replica.trash(ids[1], at: TrashItems.now())
        }
        let lines = Mutex<[String]>([])
        let expiry = TrashExpiry(node: node, name: "node", firstRun: 0.05, interval: 0.2) { line in lines.withLock { $0.append(line) } }
        defer { expiry.stop() }
        #expect(node.wait(timeout: .seconds(10)) { $0.item(ids[0])?.isDeleted == true })
        #expect(node.read { $0.trash.map(\.id) } == [ids[1]])
        // The line is logged once the run's ops are stored, just after the delete is applied.
        let deadline = Date().addingTimeInterval(10)
        while lines.withLock({ $0.isEmpty }), Date() < deadline { usleep(10_000) }
        #expect(lines.withLock { $0 } == ["node: deleted 1 item kept in the Trash for more than 30 days"])
    }
}
