import Foundation
import GalleryCrypto
import GalleryTestSupport
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `gallery-bench import [--files 1000] [--bytes 4194304]`: `gallery -C DIR add FOLDER` of many
/// image files against a `gallery serve` child, and the machine's limits measured in the same run.
///
/// Prints one JSON line per workload:
/// - `import-disk-write`: the same number of files of the same size written into a folder on the
///   same file system by as many threads as the import uses, from memory (no reading, no hashing),
///   with direct I/O in 4 MiB writes, then one `syncfs`: the disk's write ceiling for this data;
/// - `import-disk-copy`: the source files read from the disk (dropped from the page cache first) and
///   written to new files with direct I/O in 1 MiB pieces, by as many threads as the import uses, then
///   one `sync`: the disk's ceiling for what an import asks of it, reading and writing at once;
/// - `import-hash`: SHA-256 of the same bytes on every core at once (one thread per core): the
///   ceiling of hashing;
/// - `import`: `gallery add FOLDER` from its start to its exit (files found, checked, read,
///   hashed, stored, synced, installed; the node's one insert made durable), with its rate as a
///   fraction of the smaller of the copy and hash ceilings (`ofLimit`), and of the smaller of the
///   write-only and hash ceilings (`ofWriteLimit`, the figure of earlier runs); its CPU seconds,
///   its time per file, and the copy ceiling's time over its own (`ofCopyAndSync`);
/// - `import-cat`, `import-sha256sum`: `cat` and `sha256sum` over the files, read from the disk;
/// - `import-in-place`: `gallery add --in-place FOLDER` (hashed where they are, nothing copied),
///   with `sha256sum`'s time over its own (`ofSha256sum`: >= 1 is faster than `sha256sum`).
///
/// The source files are written, fsynced and then dropped from the page cache
/// (`POSIX_FADV_DONTNEED`), so that the import reads them from the disk, as a photo library is.
enum ImportBenchmark {
    static func run(_ arguments: [String]) throws -> [String] {
        var files = 1_000, bytes = 4 << 20
        var rest = arguments[...]
        while let option = rest.popFirst() {
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw BenchFailure.usage("\(option) needs a positive number") }
            switch option {
            case "--files": files = value
            case "--bytes": bytes = value
            default: throw BenchFailure.usage("unknown option \(option)")
            }
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-import-\(UUID().uuidString)")
        let photos = root.appendingPathComponent("photos"), node = root.appendingPathComponent("node")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let total = files * bytes
        // As `gallery add` does (`AddCommand`).
        let workers = max(2, ProcessInfo.processInfo.activeProcessorCount * 4)
        try makeSources(in: photos, files: files, bytes: bytes)

        var lines: [String] = []
        let disk = try diskWrite(in: root.appendingPathComponent("raw"), files: files, bytes: bytes, threads: workers)
        lines.append(line("import-disk-write", bytes: total, seconds: disk, extra: ["threads": Double(workers)]))
        let copy = try diskCopy(from: photos, to: root.appendingPathComponent("copy"), threads: workers)
        lines.append(line("import-disk-copy", bytes: total, seconds: copy, extra: ["threads": Double(workers)]))
        let hash = hashAllCores(bytes: total)
        lines.append(line("import-hash", bytes: total, seconds: hash, extra: ["threads": Double(ProcessInfo.processInfo.activeProcessorCount)]))

        let server = try ServeProcess([node.path, "--name", "bench"])
        defer { _ = server.stop() }
        guard server.endpoint != nil else { throw BenchFailure.failed("import: gallery serve did not start: \(server.standardError)") }
        let copied = try timedAdd(["-C", node.path, "add", photos.path, "--json"], files: files, photos: photos)
        let limit = min(Double(total) / copy, Double(total) / hash)
        let writeLimit = min(Double(total) / disk, Double(total) / hash)
        lines.append(line("import", bytes: total, seconds: copied.seconds, extra: [
            "files": Double(files), "ofLimit": Double(total) / copied.seconds / limit, "limitBytesPerSecond": limit,
            "ofWriteLimit": Double(total) / copied.seconds / writeLimit, "cpuSeconds": copied.cpu,
            "microsecondsPerFile": copied.seconds / Double(files) * 1e6, "ofCopyAndSync": copy / copied.seconds,
        ]))

        // Reading the files (from the disk) with `cat`, hashing them with `sha256sum`, and
        // `gallery add --in-place`, which does both and copies nothing.
        let cat = try timedTool("cat", photos: photos)
        lines.append(line("import-cat", bytes: total, seconds: cat, extra: ["files": Double(files)]))
        let sum = try timedTool("sha256sum", photos: photos)
        lines.append(line("import-sha256sum", bytes: total, seconds: sum, extra: ["files": Double(files)]))
        let kept = try timedAdd(["-C", node.path, "add", "--in-place", photos.path, "--json"], files: files, photos: photos)
        lines.append(line("import-in-place", bytes: total, seconds: kept.seconds, extra: [
            "files": Double(files), "ofSha256sum": sum / kept.seconds, "ofCat": cat / kept.seconds, "cpuSeconds": kept.cpu,
            "microsecondsPerFile": kept.seconds / Double(files) * 1e6,
        ]))
        return lines
    }

    /// Runs `gallery ARGUMENTS` (an add of the whole folder, read from the disk: the page cache
    /// dropped first) and returns its seconds and its CPU seconds (user + system).
    private static func timedAdd(_ arguments: [String], files: Int, photos: URL) throws -> (seconds: Double, cpu: Double) {
        try dropFromCache(photos)
        let before = childrenCPU()
        let timed = try Stopwatch.time { try GalleryProcess.run(arguments, timeout: 1_800) }
        let cpu = childrenCPU() - before
        guard timed.result.status == 0 else { throw BenchFailure.failed("import: gallery add exited \(timed.result.status): \(timed.result.stderr)") }
        let object = try JSONSerialization.jsonObject(with: Data(timed.result.stdout.utf8)) as? [String: Any]
        guard (object?["ids"] as? [String])?.count == files else { throw BenchFailure.failed("import: \(files) items were not all added") }
        return (timed.seconds, cpu)
    }

    /// Seconds of `TOOL FILES...` (`cat`, `sha256sum`) over every file of the folder, read from the
    /// disk (the page cache dropped first), by `xargs` in batches, as a shell would.
    private static func timedTool(_ tool: String, photos: URL) throws -> Double {
        try dropFromCache(photos)
        let path = try ExternalHashTools.executablePath(tool)
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted().map { photos.appendingPathComponent($0).path }
        return try Stopwatch.time {
            for start in stride(from: 0, to: names.count, by: 2_000) {
                _ = try ExternalHashTools.runToEnd(path, Array(names[start..<min(start + 2_000, names.count)]))
            }
        }.seconds
    }

    /// CPU seconds (user + system) of the children this process waited for.
    private static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Writes the source images (a PNG header, then seeded bytes), fsyncs them and drops them from
    /// the page cache.
    private static func makeSources(in folder: URL, files: Int, bytes: Int) throws {
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0x0F, 0xC0, 0, 0, 0x0B, 0xD0, 8, 2, 0, 0, 0, 0, 0, 0, 0]
        var buffer = [UInt8](repeating: 0, count: bytes)
        for index in 0..<files {
            buffer.withUnsafeMutableBytes { PseudoRandomBytes.fill($0, seed: UInt64(index) &+ 0x1A9) }
            buffer.replaceSubrange(0..<min(header.count, bytes), with: header.prefix(bytes))
            let path = folder.appendingPathComponent(String(format: "IMG_%05d.png", index)).path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchFailure.failed("import: cannot create \(path)") }
            defer { close(fd) }
            let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            guard written == bytes, fsync(fd) == 0 else { throw BenchFailure.failed("import: cannot write \(path)") }
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
        }
    }

    /// Drops every file of `folder` from the page cache.
    private static func dropFromCache(_ folder: URL) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let fd = open(folder.appendingPathComponent(name).path, O_RDONLY)
            guard fd >= 0 else { continue }
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
            close(fd)
        }
    }

    /// Seconds to copy every file of `source` (read from the disk) into `folder` on `threads`
    /// threads of their own, 1 MiB at a time, written with direct I/O where the file system takes
    /// it, then one `sync`; the sources are dropped from the page cache before and after.
    private static func diskCopy(from source: URL, to folder: URL, threads: Int) throws -> Double {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = try FileManager.default.contentsOfDirectory(atPath: source.path)
        try dropFromCache(source)
        defer { try? dropFromCache(source) }
        let block = 4_096, pieceLength = 1 << 20
        let failed = Atomic<Bool>(false)
        let next = Atomic<Int>(0)
        let timed = Stopwatch.time {
            let done = DispatchGroup()
            for _ in 0..<threads {
                done.enter()
                Thread.detachNewThread {
                    defer { done.leave() }
                    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceLength, alignment: block)
                    defer { buffer.deallocate() }
                    while true {
                        let index = next.add(1, ordering: .relaxed).oldValue
                        guard index < names.count else { return }
                        let input = open(source.appendingPathComponent(names[index]).path, O_RDONLY)
                        let output = open(folder.appendingPathComponent(names[index]).path, O_WRONLY | O_CREAT | O_TRUNC | directFlag, 0o644)
                        defer { close(input); close(output) }
                        guard input >= 0, output >= 0 else { failed.store(true, ordering: .relaxed); return }
                        var offset = 0
                        while true {
                            let read = pread(input, buffer.baseAddress!, pieceLength, off_t(offset))
                            guard read > 0 else { break }
                            if read % block != 0 { _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) & ~directFlag) }
                            if pwrite(output, buffer.baseAddress!, read, off_t(offset)) != read { failed.store(true, ordering: .relaxed) }
                            offset += read
                        }
                    }
                }
            }
            done.wait()
            sync()
        }
        guard !failed.load(ordering: .relaxed) else { throw BenchFailure.failed("import: the disk copy workload failed: \(String(cString: strerror(errno)))") }
        return timed.seconds
    }

    /// Seconds to write `files` files of `bytes` bytes from memory on `threads` threads, with
    /// direct I/O where the file system takes it, then one `sync`.
    private static func diskWrite(in folder: URL, files: Int, bytes: Int, threads: Int) throws -> Double {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let block = 4_096, writeLength = 4 << 20
        let failed = Atomic<Bool>(false)
        let next = Atomic<Int>(0)
        let timed = Stopwatch.time {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: writeLength, alignment: block)
                defer { buffer.deallocate() }
                PseudoRandomBytes.fill(buffer, seed: 7)
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < files else { return }
                    let fd = open(folder.appendingPathComponent("raw-\(index)").path, O_WRONLY | O_CREAT | O_TRUNC | directFlag, 0o644)
                    guard fd >= 0 else { failed.store(true, ordering: .relaxed); return }
                    var offset = 0
                    while offset < bytes {
                        let length = min(writeLength, bytes - offset)
                        let aligned = length - length % block
                        if aligned > 0, pwrite(fd, buffer.baseAddress!, aligned, off_t(offset)) != aligned { failed.store(true, ordering: .relaxed) }
                        if length > aligned {
                            // The tail is written without direct I/O, as the store writes it.
                            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~directFlag)
                            if pwrite(fd, buffer.baseAddress!, length - aligned, off_t(offset + aligned)) != length - aligned { failed.store(true, ordering: .relaxed) }
                        }
                        offset += length
                    }
                    close(fd)
                }
            }
            sync()
        }
        guard !failed.load(ordering: .relaxed) else { throw BenchFailure.failed("import: the disk write workload failed: \(String(cString: strerror(errno)))") }
        return timed.seconds
    }

    /// Seconds to hash `bytes` bytes split across one thread per core, each from its own buffer.
    private static func hashAllCores(bytes: Int) -> Double {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let share = bytes / cores, bufferLength = 4 << 20
        return Stopwatch.time {
            DispatchQueue.concurrentPerform(iterations: cores) { thread in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferLength, alignment: 64)
                defer { buffer.deallocate() }
                PseudoRandomBytes.fill(buffer, seed: UInt64(thread))
                var hasher = SHA256()
                var done = 0
                while done < share {
                    let length = min(bufferLength, share - done)
                    hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
                    done += length
                }
                _ = hasher.finalize()
            }
        }.seconds
    }

    /// Linux's `O_DIRECT` (not exported by the Glibc module); 0 elsewhere.
    #if os(Linux) && arch(x86_64)
    private static let directFlag: Int32 = 0o40000
    #elseif os(Linux) && arch(arm64)
    private static let directFlag: Int32 = 0o200000
    #else
    private static let directFlag: Int32 = 0
    #endif

    private static func line(_ workload: String, bytes: Int, seconds: Double, extra: [String: Double]) -> String {
        var fields = [
            "\"workload\": \"\(workload)\"", "\"bytes\": \(bytes)", "\"seconds\": \(String(format: "%.3f", seconds))",
            "\"bytesPerSecond\": \(Int((Double(bytes) / seconds).rounded()))",
        ]
        fields += extra.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \(String(format: "%.3f", $0.value))" }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
