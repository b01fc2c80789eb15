import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files both systems get, made once per run: a folder of many small images, one of medium
/// ones and one large file, each written twice (one copy for our `gallery add`, one for
/// Syncthing's folder, which it marks with `.stfolder`), byte for byte the same.
struct SideBySideData {
    /// One data set: its name (the gallery and the Syncthing folder), the number of files and
    /// their size.
    struct FileSet {
        var name: String
        var files: Int
        var bytes: Int
        /// The folder our nodes import from, and the one Syncthing's first node shares.
        var ours: URL
        var theirs: URL

        var totalBytes: Int { files * bytes }

        /// The file names, sorted.
        var names: [String] { (0..<files).map { String(format: "IMG_%05d.png", $0) } }
    }

    let small: FileSet
    let medium: FileSet
    let large: FileSet

    /// Writes the three sets under `root`.
    init(root: URL, options: SideBySideOptions) throws {
        func set(_ name: String, _ files: Int, _ bytes: Int) -> FileSet {
            FileSet(name: name, files: files, bytes: bytes, ours: root.appendingPathComponent("ours-\(name)"),
                theirs: root.appendingPathComponent("theirs-\(name)"))
        }
        small = set("small", options.smallFiles, options.smallBytes)
        medium = set("medium", options.mediumFiles, options.mediumBytes)
        large = set("large", 1, options.largeBytes)
        for data in [small, medium, large] { try Self.write(data) }
    }

    /// Writes every file of `set` into both folders: a PNG signature and header, then seeded bytes
    /// (incompressible, distinct per file).
    private static func write(_ set: FileSet) throws {
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0x0F, 0xC0, 0, 0, 0x0B, 0xD0, 8, 2, 0, 0, 0, 0, 0, 0, 0]
        for folder in [set.ours, set.theirs] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var buffer = [UInt8](repeating: 0, count: set.bytes)
        for (index, name) in set.names.enumerated() {
            buffer.withUnsafeMutableBytes { PseudoRandomBytes.fill($0, seed: UInt64(index) &* 7_919 &+ UInt64(set.bytes)) }
            buffer.replaceSubrange(0..<min(header.count, set.bytes), with: header.prefix(set.bytes))
            for folder in [set.ours, set.theirs] {
                let path = folder.appendingPathComponent(name).path
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                guard fd >= 0 else { throw BenchFailure.failed("syncthing: cannot create \(path)") }
                defer { close(fd) }
                let written = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
                guard written == set.bytes else { throw BenchFailure.failed("syncthing: cannot write \(path)") }
            }
        }
        sync()
    }

    /// Drops every regular file of `folder` from the page cache (`POSIX_FADV_DONTNEED`), so that
    /// the next reader reads it from the disk, as a photo library is read; both systems get the
    /// same.
    static func dropFromCache(_ folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names {
            let fd = open(folder.appendingPathComponent(name).path, O_RDONLY)
            guard fd >= 0 else { continue }
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
            close(fd)
        }
    }

    /// Whether `folder` holds exactly `names`, each of `bytes` bytes, besides Syncthing's marker
    /// (`.stfolder`) and no temporary file (`.syncthing.NAME.tmp`, renamed once complete).
    static func holds(_ folder: URL, names: Set<String>, bytes: Int) -> Bool {
        guard let present = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
        let files = present.filter { $0 != ".stfolder" && $0 != ".stignore" }
        guard files.count == names.count else { return false }
        for name in files {
            guard names.contains(name) else { return false }
            var info = stat()
            guard stat(folder.appendingPathComponent(name).path, &info) == 0, Int(info.st_size) == bytes else { return false }
        }
        return true
    }
}
