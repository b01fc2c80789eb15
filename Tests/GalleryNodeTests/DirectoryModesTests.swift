import Foundation
@testable import GalleryHost
import GalleryModel
@testable import GalleryNode
@testable import GalleryStorage
import GalleryTestSupport
import Testing

extension NodeSuites {
    /// A node's directory is its owner's only: the directory and every directory in it 0700, every
    /// file 0600, whether made new, renamed into place, or left 0644/0755 by an older version.
    @Suite("Directory modes")
    struct DirectoryModesTests {
        /// Every entry under `root` (itself included) with its permission bits, symbolic links skipped.
        static func modes(under root: URL) -> [(path: String, isDirectory: Bool, mode: mode_t)] {
            var result: [(String, Bool, mode_t)] = []
            func walk(_ path: String) {
                var info = stat()
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK else { return }
                let isDirectory = info.st_mode & S_IFMT == S_IFDIR
                result.append((path, isDirectory, info.st_mode & 0o7777))
                if isDirectory {
                    for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { walk(path + "/" + entry) }
                }
            }
            walk(root.path)
            return result
        }

        /// Records an issue for each entry whose mode is not 0700 (directory) or 0600 (file).
        static func expectPrivate(_ root: URL, sourceLocation: SourceLocation = #_sourceLocation) {
            for entry in modes(under: root) {
                let wanted: mode_t = entry.isDirectory ? 0o700 : 0o600
                #expect(entry.mode == wanted, "\(entry.path) is \(String(entry.mode, radix: 8))", sourceLocation: sourceLocation)
            }
        }

        @Test("A new node directory, with ops, a blob, a checkpoint and node.json: directories 0700, files 0600; an older one is tightened on open")
        func modes() throws {
            try StorageFixtures.withScratchDirectory { scratch in
                let dir = scratch.appendingPathComponent("node")
                let policy = CheckpointPolicy(every: 1_000_000, atStopAfter: 1)
                let server = try GalleryServer(directory: dir, name: "srv", log: .silent, checkpoints: policy)
                try server.start()
                try server.node.perform { replica in
                    _ = try replica.createGallery("second")
                    _ = try replica.insert([.titled("one")], into: "second", at: 0)
                }
                // A blob as `gallery add` stores it (temporary file renamed into place), and a partial transfer.
                let blobs = try BlobStore(directory: dir, removingTemporaryFiles: false)
                let hash = try blobs.put(Array("image bytes".utf8))
                let writer = try blobs.makeWriter(expecting: String(repeating: "ab", count: 32), size: 10)
                _ = writer
                try server.checkpoint()
                _ = try server.node.perform { try $0.createGallery("third") }
                // While it runs: node.json and the control socket too.
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("node.json").path))
                Self.expectPrivate(dir)
                server.stop()
                let names = Set(Self.modes(under: dir).map { URL(fileURLWithPath: $0.path).lastPathComponent })
                for name in ["oplog", "ops.compact", "snapshot", "blobs", "tmp", hash, "node.key", "secret", "replica", "lock"] {
                    #expect(names.contains(name), "\(name) was not made: the walk would prove nothing about it")
                }
                Self.expectPrivate(dir)

                // As an older version left it: files 0644, directories 0755, and a stray file.
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("old.tmp").path, contents: Data([1]))
                for entry in Self.modes(under: dir) { chmod(entry.path, entry.isDirectory ? 0o755 : 0o644) }
                let restarted = try GalleryServer(directory: dir, name: "srv", log: .silent, checkpoints: policy)
                Self.expectPrivate(dir)
                try restarted.start()
                restarted.stop()
                Self.expectPrivate(dir)
            }
        }
    }
}
