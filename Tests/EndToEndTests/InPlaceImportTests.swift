import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `gallery add --in-place`: no copy in `blobs/`; bytes served from the files while they hash to
/// what was added; a file changed, truncated or removed reported by `status` and by the blob
/// route's refusal (what the page's tile shows), never served; re-adding takes the new bytes as a
/// new item. And `gallery add` (copying) against a node killed mid-import.
@Suite("Import in place (gallery add --in-place)", .serialized)
struct InPlaceImportTests {
    private let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-in-place-\(UUID().uuidString)")

    /// Files of `blobs/` (outside `tmp/`).
    private func blobCount(_ node: URL) throws -> Int {
        let blobs = node.appendingPathComponent("blobs")
        // The two-character fan-out directories hold the blobs (`derived/` the thumbnails, `cache` the cache's records).
        return try FileManager.default.contentsOfDirectory(atPath: blobs.path).filter { $0.utf8.count == 2 }.reduce(0) { count, name in
            count + (try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(name).path).count)
        }
    }

    private func hash(_ path: String) throws -> String {
        SHA256.hex(SHA256.hash(Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
    }

    @Test("add --in-place: served from the files; changed, truncated and removed files reported by status and the blob route, never served; re-adding makes a new item")
    func inPlace() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let photos = base.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let files = try ImageFiles.make(in: photos, count: 6, seed: 11)
        let hashes = try files.map(hash)
        let node = try WebNode("keeper", base: base)
        defer { node.stop() }

        let added = try node.gallery("add", "--in-place", photos.path)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("hashed 6/6 files"), "\(added.stderr)")
        let items = try node.items("keeper")
        #expect(items.compactMap { $0["hash"] as? String } == hashes)
        #expect(try blobCount(node.directory) == 0, "nothing copied")
        for (index, hash) in hashes.enumerated() {
            let answer = try node.get("/blobs/\(hash)")
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: files[index])))
            #expect(answer.status == 200 && answer.body == original)
        }
        var status = try node.gallery("status", "--json")
        var kept = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["keptInPlace"] as? [String: Any]
        #expect(kept?["files"] as? Int == 6 && (kept?["problems"] as? [Any])?.isEmpty == true, "\(status.stdout)")

        // Changed (other bytes, same size and time), truncated, removed.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: files[0])))
        var before = stat()
        #expect(stat(files[0], &before) == 0)
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: files[0]))
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, files[0], &times, 0) == 0)
        #expect(truncate(files[1], 10) == 0)
        #expect(unlink(files[2]) == 0)

        for (index, expected) in [(0, "its bytes no longer hash to"), (1, "size"), (2, "gone")] {
            let answer = try node.get("/blobs/\(hashes[index])")
            #expect(answer.status == 404, "\(files[index]): \(answer.status)")
            #expect(answer.json["error"] as? String == "changedOnDisk", "\(answer.text)")
            let message = answer.json["message"] as? String ?? ""
            #expect(message.contains(files[index]) && message.contains(expected), "\(message)")
        }
        #expect(try node.get("/blobs/\(hashes[3])").status == 200, "the intact files still serve")
        // export copies a kept file checked against its hash; a changed one writes nothing.
        let exported = base.appendingPathComponent("exported.png")
        #expect(try node.gallery("export", "keeper:3", exported.path).status == 0)
        #expect(try self.hash(exported.path) == hashes[3])
        let refusedExport = try node.gallery("export", "keeper:0", base.appendingPathComponent("changed.png").path)
        #expect(refusedExport.status == 1 && !FileManager.default.fileExists(atPath: base.appendingPathComponent("changed.png").path),
                "\(refusedExport.stderr)")

        status = try node.gallery("status", "--json")
        kept = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["keptInPlace"] as? [String: Any]
        let problems = (kept?["problems"] as? [[String: String]]) ?? []
        #expect(problems.map { $0["path"] ?? "" } == Array(files[0...2]), "\(problems)")
        #expect(problems.map { $0["hash"] ?? "" } == Array(hashes[0...2]))
        #expect(problems[2]["reason"] == "gone")
        let text = try node.gallery("status").stdout
        #expect(text.contains("kept in place: 6 files, 3 cannot serve their bytes"), "\(text)")
        #expect(text.contains("in place: \(files[1]): changed on disk (size"), "\(text)")

        // The items stay; re-adding the changed file takes its new bytes as a new item.
        #expect(try node.items("keeper").count == 6)
        let again = try node.gallery("add", "--in-place", files[0])
        #expect(again.status == 0, "\(again.stderr)")
        let after = try node.items("keeper")
        #expect(after.count == 7 && after.last?["hash"] as? String == SHA256.hex(SHA256.hash(bytes)))
        #expect(try node.get("/blobs/\(SHA256.hex(SHA256.hash(bytes)))").body == bytes)

        // A named file that is not an image refuses the whole add, as without --in-place.
        let notImage = base.appendingPathComponent("notes.txt")
        try Data("text".utf8).write(to: notImage)
        let refused = try node.gallery("add", "--in-place", files[3], notImage.path)
        #expect(refused.status == 1 && refused.stderr.contains("not a PNG, JPEG or GIF image"), "\(refused.stderr)")
        #expect(try node.items("keeper").count == 7)
    }

    @Test("kill -9 of the node during an import, then a restart: every item has its bytes, every acknowledged item is there")
    func nodeKilledMidImport() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let photos = base.appendingPathComponent("photos"), directory = base.appendingPathComponent("node")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        _ = try ImageFiles.make(in: photos, count: 200, seed: 12)
        var acknowledged = 0
        // Killed at once, while files are stored, and once they all are (around the command).
        for (round, mark) in ["", "stored ", "stored 200/200"].enumerated() {
            var server = try ServeProcess([directory.path, "--name", "alice"])
            let importer = try ServeProcess(["-C", directory.path, "add", photos.path], serve: false)
            let deadline = Date().addingTimeInterval(30)
            while importer.isRunning && Date() < deadline && !importer.standardError.contains(mark) { usleep(200) }
            #expect(server.stop(signal: SIGKILL) != nil)
            let status = importer.stop(signal: SIGKILL)
            if status == 0 { acknowledged += importer.standardOutput.split(separator: "\n").count }

            server = try ServeProcess([directory.path, "--name", "alice"])
            defer { _ = server.stop() }
            let listing = try GalleryProcess.run(["-C", directory.path, "list", "alice", "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any]
            let items = object?["items"] as? [[String: Any]] ?? []
            #expect(items.count >= acknowledged, "round \(round): \(items.count) items, \(acknowledged) acknowledged")
            #expect(items.count % 200 == 0, "one insert: all of an import or none")
            for item in items {
                let hash = try #require(item["hash"] as? String)
                let blob = directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
                #expect(FileManager.default.fileExists(atPath: blob), "round \(round): \(hash) has no bytes")
                if FileManager.default.fileExists(atPath: blob) { #expect(try self.hash(blob) == hash) }
            }
        }
    }
}
