import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `gallery add` of folders and many files: hashed and stored by the command line in parallel,
/// inserted by the node as one run, non-images named, the same bytes stored once, progress on
/// stderr, and nothing half added when the command line or the node is killed.
@Suite("Import (gallery add of folders)", .serialized)
struct ImportCommandTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func gallery(_ directory: URL, _ arguments: String...) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory.path] + arguments)
    }

    /// The items of the node's gallery `name`: (id, title), in order.
    private func items(_ directory: URL, _ name: String) throws -> [(id: String, title: String)] {
        let result = try gallery(directory, "list", name, "--json")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let entries = object?["items"] as? [[String: Any]] ?? []
        return entries.map { ($0["id"] as? String ?? "", $0["title"] as? String ?? "") }
    }

    /// The blobs the node's store holds (in its fan-out directories, not `derived/` nor the cache's
    /// record), and the temporary files in `blobs/tmp`.
    private func storedFiles(_ node: URL) throws -> (blobs: Int, temporary: Int) {
        let blobs = node.appendingPathComponent("blobs")
        var count = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: blobs.path) where name.utf8.count == 2 {
            count += try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(name).path).count
        }
        return (count, try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent("tmp").path).count)
    }

    /// The blobs of the node's store whose bytes do not hash to their name (none, when every copy
    /// was whole and durable before its rename).
    private func misnamedBlobs(_ node: URL) throws -> [String] {
        let blobs = node.appendingPathComponent("blobs")
        var misnamed: [String] = []
        for fanOut in try FileManager.default.contentsOfDirectory(atPath: blobs.path) where fanOut.utf8.count == 2 {
            for name in try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(fanOut).path) {
                let bytes = try Data(contentsOf: blobs.appendingPathComponent(fanOut).appendingPathComponent(name))
                if SHA256.hex(SHA256.hash([UInt8](bytes))) != name { misnamed.append(name) }
            }
        }
        return misnamed
    }

    /// Whether the IDs are one insert's: the same replica, counters one after another.
    private func contiguous(_ ids: [String]) -> Bool {
        let parts = ids.map { $0.split(separator: "@") }
        guard let first = parts.first, let start = Int(first[0]) else { return false }
        return parts.enumerated().allSatisfy { index, part in part.count == 2 && part[1] == first[1] && Int(part[0]) == start + index }
    }

    @Test("add FOLDER: every image once, in path order, as one run; a non-image skipped by name; the same bytes stored once; progress lines")
    func folderImport() throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let node = base.appendingPathComponent("node"), photos = base.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let files = try ImageFiles.make(in: photos, count: 30, seed: 1)
        try Data("not an image".utf8).write(to: photos.appendingPathComponent("notes.txt"))
        try FileManager.default.copyItem(atPath: files[0], toPath: photos.appendingPathComponent("sub/copy.png").path)
        let server = try ServeProcess([node.path, "--name", "alice"])
        defer { #expect(server.stop() == 0) }

        let added = try gallery(node, "add", photos.path)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("skipped \(photos.path)/notes.txt: not a PNG, JPEG or GIF image"), "\(added.stderr)")
        let progress = added.stderr.split(separator: "\n").filter { $0.hasPrefix("stored ") }
        #expect(progress.count >= 2 && progress.last?.hasPrefix("stored 32/32 files") == true, "\(added.stderr)")
        let listed = try items(node, "alice")
        let expectedTitles = (files.map { URL(fileURLWithPath: $0).lastPathComponent } + ["copy.png"]).sorted { a, b in
            // The folder's files in path order: image-N.png before sub/copy.png.
            (a == "copy.png" ? 1 : 0, a) < (b == "copy.png" ? 1 : 0, b)
        }
        #expect(listed.map(\.title) == expectedTitles)
        #expect(added.stdout.split(separator: "\n").map(String.init) == listed.map(\.id))
        #expect(contiguous(listed.map(\.id)), "one insert: \(listed.map(\.id))")
        let stored = try storedFiles(node)
        #expect(stored.blobs == 30 && stored.temporary == 0, "\(stored)")

        // --json: the IDs and the files skipped, no progress.
        let more = try ImageFiles.make(in: base, count: 2, seed: 2)
        let json = try gallery(node, "add", "--json", "--to", "alice", photos.appendingPathComponent("*.txt").path, more[0], more[1])
        #expect(json.status == 0 && !json.stderr.contains("stored "), "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["ids"] as? [String])?.count == 2)
        #expect((object?["skipped"] as? [[String: String]])?.first?["path"] == photos.appendingPathComponent("notes.txt").path)

        // A file named on the command line that is not an image refuses the whole add.
        let refused = try gallery(node, "add", more[0], photos.appendingPathComponent("notes.txt").path)
        #expect(refused.status == 1 && refused.stderr.contains("notes.txt: not a PNG, JPEG or GIF image"), "\(refused.stderr)")
        #expect(try items(node, "alice").count == 33)
        #expect(try storedFiles(node).temporary == 0)
    }

    @Test("kill -9 of the command line mid-import adds nothing; kill -9 of the node after the answer loses nothing")
    func killedImport() throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let node = base.appendingPathComponent("node"), photos = base.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // 300 files of 256 KiB: the first progress line comes at a tenth of them.
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0, 4, 0, 0, 0, 3, 8, 2, 0, 0, 0, 0, 0, 0, 0]
        for index in 0..<300 {
            var bytes = header + [UInt8](repeating: 0, count: 256 << 10)
            withUnsafeBytes(of: UInt64(index)) { bytes.replaceSubrange(header.count..<header.count + 8, with: $0) }
            try Data(bytes).write(to: photos.appendingPathComponent(String(format: "photo-%03d.png", index)))
        }
        var server = try ServeProcess([node.path, "--name", "alice"])

        let importer = try ServeProcess(["-C", node.path, "add", photos.path], serve: false)
        let deadline = Date().addingTimeInterval(20)
        while !importer.standardError.contains("stored ") && importer.isRunning && Date() < deadline { usleep(500) }
        let status = importer.stop(signal: SIGKILL)
        let count = try items(node, "alice").count
        // Killed before its command: nothing; if it had already finished: everything. Never a part.
        #expect(count == 0 || (count == 300 && status == 0), "\(count) items after kill -9 (exit \(String(describing: status)))")

        let added = try gallery(node, "add", photos.path)
        #expect(added.status == 0, "\(added.stderr)")
        let acknowledged = added.stdout.split(separator: "\n").count
        #expect(acknowledged == 300)
        #expect(server.stop(signal: SIGKILL) != nil)
        server = try ServeProcess([node.path, "--name", "alice"])
        defer { #expect(server.stop() == 0) }
        let after = try items(node, "alice")
        #expect(after.count == count + acknowledged)
        let stored = try storedFiles(node)
        // Every item's bytes are stored (the two imports share them); the killed one's temporary
        // files went at the node's start.
        #expect(stored.blobs == 300 && stored.temporary == 0, "\(stored)")
        // Files of 256 KiB: written with direct I/O but their first and last pages; each whole.
        #expect(try misnamedBlobs(node).isEmpty)
    }
}
