import Foundation
@testable import GalleryControl
import GalleryModel
@testable import GalleryNode
@testable import GalleryStorage
import GalleryWire
import Testing

/// The typed dispatcher and the use cases of `Actions/`, called in process, without a socket or a
/// command line: what any adapter (the control socket, later a web page) gets.
@Suite("Typed control commands and actions")
struct ControlCommandsTests {
    /// A node with a gallery `node` of three URL items, no blob store.
    private func node() throws -> SyncNode {
        let node = SyncNode(
            configuration: NodeConfiguration(name: "node", secret: Array("typed commands".utf8), log: .silent, persist: { _, _ in }),
            replica: Replica(id: ReplicaID(deriving: "node")))
        try node.perform { try $0.createGallery("node") }
        return node
    }

    @Test("AddImage inserts URLs as one run in the order given; a bound violated changes nothing")
    func addImage() throws {
        let node = try node()
        let urls = ["https://example.org/a.png", "https://example.org/b.png"]
        let ids = try AddImage.perform(AddRequest(sources: urls.map(AddSource.url), aspect: 1.5), defaultGallery: "node", on: node)
        #expect(node.read { replica in ids.map { replica.item($0)?.url } } == urls)
        #expect(node.read { try? $0.items(in: "node").map(\.id) } == ids)
        let ops = node.read { $0.opCount }
        let long = "https://example.org/" + String(repeating: "u", count: 9_000)
        #expect(throws: (any Error).self) {
            try AddImage.perform(AddRequest(sources: [.url(urls[0]), .url(long)]), defaultGallery: "node", on: node)
        }
        #expect(throws: (any Error).self) {
            try AddImage.perform(AddRequest(sources: [.file("/tmp/x.png")]), defaultGallery: "node", on: node)
        }
        #expect(node.read { $0.opCount } == ops)
    }

    @Test("AddImage of blobs already stored (gallery add): headers read from the store, names as titles, one run; a blob not held or not an image changes nothing")
    func addStoredBlobs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-stored-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try BlobStore(directory: directory)
        let node = SyncNode(
            configuration: NodeConfiguration(name: "node", secret: Array("stored blobs".utf8), log: .silent, persist: { _, _ in }, blobs: store),
            replica: Replica(id: ReplicaID(deriving: "node")))
        try node.perform { try $0.createGallery("node") }
        // A PNG of 32 x 18 pixels (the header is all the node reads), and bytes that are no image.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0, 32, 0, 0, 0, 18, 8, 2, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 7, count: 5_000)
        let image = try store.put(png), text = try store.put(Array("not an image".utf8))
        let ids = try AddImage.perform(
            AddRequest(sources: [.blob(hash: image, name: "a.png"), .url("https://example.org/u.png"), .blob(hash: image, name: "b.png")]),
            defaultGallery: "node", on: node)
        let items = node.read { replica in ids.compactMap { replica.item($0) } }
        #expect(items.map(\.title) == ["a.png", "u.png", "b.png"])
        #expect(items[0].contentHash == image && items[0].byteSize == Int64(png.count) && items[0].mediaType == "image/png")
        #expect(items[0].aspectRatio == 32.0 / 18.0)
        #expect(node.read { try? $0.items(in: "node").map(\.id) } == ids)
        let ops = node.read { $0.opCount }
        for source in [AddSource.blob(hash: String(repeating: "0", count: 64), name: "gone.png"), .blob(hash: "../../secret", name: "x.png"),
                       .blob(hash: text, name: "notes.txt")] {
            #expect(throws: ActionError.self) {
                try AddImage.perform(AddRequest(sources: [.blob(hash: image, name: "c.png"), source]), defaultGallery: "node", on: node)
            }
        }
        #expect(node.read { $0.opCount } == ops)
        // The JSON of a stored source.
        let json = String(decoding: try JSONEncoder().encode(AddSource.blob(hash: image, name: "a.png")), as: UTF8.self)
        #expect(try JSONDecoder().decode(AddSource.self, from: Data(json.utf8)) == .blob(hash: image, name: "a.png"))
        #expect(json.contains("\"blob\":\"\(image)\"") && json.contains("\"name\":\"a.png\""))
    }

    @Test("ItemReference resolves IDs and places; unknown ones throw")
    func resolve() throws {
        let node = try node()
        let ids = try AddImage.perform(AddRequest(sources: [.url("https://e.org/1"), .url("https://e.org/2")]),
                                       defaultGallery: "node", on: node)
        let replica = node.read { $0 }
        #expect(try ItemReference.position(gallery: "node", index: 1).resolve(in: replica) == ids[1])
        #expect(try ItemReference.id(ids[0]).resolve(in: replica) == ids[0])
        #expect(throws: ModelError.self) { try ItemReference.position(gallery: "node", index: 2).resolve(in: replica) }
        #expect(throws: ModelError.self) { try ItemReference.position(gallery: "none", index: 0).resolve(in: replica) }
        #expect(throws: ModelError.self) { try ItemReference.id(ids[1].advanced(by: 5)).resolve(in: replica) }
    }

    @Test("the dispatcher answers typed replies and refuses with a reason, changing nothing")
    func dispatch() throws {
        let node = try node()
        let reply = try ControlCommands.execute(.add(AddRequest(sources: [.url("https://e.org/1")], gallery: "node")), on: node)
        let id = try #require(reply.ids?.first)
        #expect(try ControlCommands.execute(.newGallery("trip"), on: node) == .done)
        #expect(try ControlCommands.execute(.move(item: .id(id), to: "trip", at: 0), on: node) == .done)
        guard case .galleries(let listing) = try ControlCommands.execute(.list(gallery: "trip"), on: node) else {
            Issue.record("list did not answer galleries")
            return
        }
        #expect(listing.first?.items.map(\.id) == [id.description])
        let ops = node.read { $0.opCount }
        // Refusals: a gallery name over the bound, a bad host, a delete naming an item twice.
        #expect(throws: (any Error).self) { try ControlCommands.execute(.newGallery(String(repeating: "g", count: 256)), on: node) }
        #expect(throws: (any Error).self) { try ControlCommands.execute(.connect(host: "bad host", port: 1), on: node) }
        #expect(throws: (any Error).self) { try ControlCommands.execute(.delete([.id(id), .position(gallery: "trip", index: 0)]), on: node) }
        #expect(throws: (any Error).self) { try ControlCommands.execute(.update(UpdateRequest(item: .id(id))), on: node) }
        #expect(node.read { $0.opCount } == ops)
        #expect(node.read { $0.item(id)?.isDeleted } == false)
    }
}
