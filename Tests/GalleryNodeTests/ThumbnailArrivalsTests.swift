import GalleryModel
@testable import GalleryNode
import Synchronization
import Testing

/// The replicator's side of arrivals, without a node (`ThumbnailReplicator+Arrivals`): which
/// content hashes ops name, and a node without thumbnails answering at once.
@Suite struct ThumbnailArrivalsTests {
    static let first = String(repeating: "a", count: 64)
    static let second = String(repeating: "b", count: 64)

    @Test func opsNameTheHashesOfItemsInsertedReadyOrCommittedLater() throws {
        var replica = Replica(id: ReplicaID(deriving: "arrivals"))
        try replica.createGallery("g")
        _ = try replica.insert([
            ItemDraft(fields: [.title: .text("ready"), .contentHash: .text(Self.first), .byteSize: .integer(3)]),
            .titled("no picture"),
        ], into: "g", at: 0)
        _ = try replica.insert([.placeholder("later")], into: "g", at: 0)
        let item = try #require(try replica.items(in: "g").first { $0.state == .placeholder }).id
        _ = try replica.update(item, .contentHash, to: .text(Self.second))
        _ = try replica.update(item, .title, to: .text("renamed"))
        let ops = replica.lastOps(replica.opCount)
        #expect(ThumbnailReplicator.contentHashes(in: ops) == [Self.first, Self.second])
    }

    @Test func aNodeWithoutThumbnailsAnswersAtOnce() {
        let answers = Mutex<[Result<[UInt8], ThumbnailFailure>]>([])
        ThumbnailReplicator.demand(of: Self.first, size: .small, from: nil) { result in answers.withLock { $0.append(result) } }
        #expect(answers.withLock { $0.count } == 1)
        #expect(answers.withLock { $0.first.map { if case .failure(.unknown) = $0 { true } else { false } } } == true)
    }
}
