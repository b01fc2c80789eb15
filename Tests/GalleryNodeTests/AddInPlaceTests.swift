import Foundation
import GalleryCrypto
import GalleryHost
import GalleryModel
@testable import GalleryNode
@testable import GalleryStorage
import GalleryWire
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `AddImage` of files kept in place and of many stored blobs: records made before the items, a
/// file changed since the command line hashed it refused, headers read on every core with the
/// results and the first error in order.
@Suite("AddImage in place and in bulk")
struct AddInPlaceTests {
    /// A PNG of `width` x 18 pixels with `filler` bytes after its header.
    private func png(width: UInt8, filler: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0, width, 0, 0, 0, 18, 8, 2, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: width, count: filler)
    }

    private func withNode(_ body: (SyncNode, BlobStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-add-in-place-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try BlobStore(directory: directory.appendingPathComponent("node"))
        let node = SyncNode(
            configuration: NodeConfiguration(name: "node", secret: Array("in place".utf8), log: .silent, persist: { _, _ in }, blobs: store),
            replica: Replica(id: ReplicaID(deriving: "node")))
        try node.perform { try $0.createGallery("node") }
        try body(node, store, directory)
    }

    /// The source the command line sends for a file it hashed where it is.
    private func source(_ path: URL, _ bytes: [UInt8]) throws -> AddSource {
        try Data(bytes).write(to: path)
        var status = stat()
        #expect(stat(path.path, &status) == 0)
        return .inPlace(path: path.path, hash: SHA256.hex(SHA256.hash(bytes)), size: bytes.count, modified: InPlaceFiles.modified(status))
    }

    @Test("Files kept in place: recorded, items with their hash, size and header; a file changed since it was hashed refuses the add")
    func inPlace() throws {
        try withNode { node, store, directory in
            let first = png(width: 32, filler: 3_000), second = png(width: 64, filler: 9_000)
            let sources = [try source(directory.appendingPathComponent("a.png"), first), try source(directory.appendingPathComponent("b.png"), second)]
            let ids = try AddImage.perform(AddRequest(sources: sources), defaultGallery: "node", on: node)
            let items = node.read { replica in ids.compactMap { replica.item($0) } }
            #expect(items.map(\.title) == ["a.png", "b.png"])
            #expect(items.map(\.contentHash) == [SHA256.hex(SHA256.hash(first)), SHA256.hex(SHA256.hash(second))])
            #expect(items.map(\.byteSize) == [Int64(first.count), Int64(second.count)])
            #expect(items[1].aspectRatio == 64.0 / 18.0 && items[1].mediaType == "image/png")
            #expect(store.inPlace.count == 2 && store.contains(SHA256.hex(SHA256.hash(second))))
            #expect(store.keptFiles().count == 2 && store.keptFiles().problems.isEmpty)

            // Changed after the command line hashed it: the node sees another size.
            let stale = try source(directory.appendingPathComponent("c.png"), png(width: 20, filler: 100))
            try Data(png(width: 20, filler: 101)).write(to: directory.appendingPathComponent("c.png"))
            let ops = node.read { $0.opCount }
            #expect(throws: ActionError.self) { try AddImage.perform(AddRequest(sources: [stale]), defaultGallery: "node", on: node) }
            #expect(node.read { $0.opCount } == ops && store.inPlace.count == 2)

            #expect(unlink(directory.appendingPathComponent("a.png").path) == 0)
            #expect(store.keptFiles().problems.map(\.reason) == ["gone"])
            #expect(store.keptFileProblem(for: SHA256.hex(SHA256.hash(first)))?.hasSuffix("a.png: gone") == true)
            #expect(store.keptFileProblem(for: SHA256.hex(SHA256.hash(second))) == nil)

            let json = String(decoding: try JSONEncoder().encode(sources[0]), as: UTF8.self)
            #expect(try JSONDecoder().decode(AddSource.self, from: Data(json.utf8)) == sources[0])
            #expect(json.contains("\"inPlace\":") && json.contains("\"modified\":"))
        }
    }

    @Test("300 stored blobs: headers read on every core, items in the order given; the first bad source (in order) is the one named")
    func many() throws {
        try withNode { node, store, _ in
            let hashes = try (0..<300).map { index in try store.put(png(width: UInt8(1 + index % 200), filler: index)) }
            let sources = hashes.enumerated().map { AddSource.blob(hash: $0.element, name: "p\($0.offset).png") }
            let ids = try AddImage.perform(AddRequest(sources: sources), defaultGallery: "node", on: node)
            let items = node.read { replica in ids.compactMap { replica.item($0) } }
            #expect(items.map(\.contentHash) == hashes)
            #expect(items.map(\.title) == (0..<300).map { "p\($0).png" })
            var bad = sources
            bad[150] = .blob(hash: String(repeating: "1", count: 64), name: "first-bad.png")
            bad[250] = .blob(hash: String(repeating: "2", count: 64), name: "second-bad.png")
            do {
                _ = try AddImage.perform(AddRequest(sources: bad), defaultGallery: "node", on: node)
                Issue.record("a missing blob was added")
            } catch let failure as ActionError {
                #expect(failure.localizedDescription.contains("first-bad.png"), "\(failure.localizedDescription)")
            }
        }
    }
}
