import Foundation
import GalleryCrypto
import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The files whose bytes a node serves from where they are (`gallery add --in-place`), not from a
/// copy in `blobs/`: `DIR/in-place`, one record per line (`CRC32 JSON`), appended and fsynced
/// before the items naming them are inserted, so that no item outlives its record.
///
/// A record says what the file held when it was added: its path, size, modification time and
/// SHA-256. A file whose size or modification time differ, that is gone, or whose bytes did not
/// hash to the record's when read (`BlobFile`) is "changed on disk": never served, reported by
/// `problems()` (and so by `status`), and its bytes are had from peers that hold them instead.
// unchecked Sendable: its records and problems are under `lock`, which also serializes appends to its index file
package final class InPlaceFiles: @unchecked Sendable {
    /// One file kept in place.
    package struct Record: Codable, Hashable, Sendable {
        /// SHA-256 of its bytes, lowercase hex.
        package var hash: String
        /// Its absolute path.
        package var path: String
        /// Its size in bytes.
        package var size: Int
        /// Its modification time, nanoseconds since 1970.
        package var modified: Int64

        package init(hash: String, path: String, size: Int, modified: Int64) {
            self.hash = hash
            self.path = path
            self.size = size
            self.modified = modified
        }
    }

    /// A file kept in place that cannot serve its bytes, and why.
    package struct Problem: Hashable, Sendable {
        package var record: Record
        /// "gone", "changed on disk (size 10 -> 12)", "changed on disk (bytes differ)".
        package var reason: String
    }

    /// `DIR/in-place`.
    package let file: URL
    private let lock = NSLock()
    // Guarded by `lock`.
    private var loaded = false
    private var byHash: [String: [Record]] = [:]
    private var recordCount = 0
    /// Files found to hold other bytes than their hash's: why, and their identity then (device,
    /// inode, size, modification and change times), so that a file changed again is looked at anew.
    private var failedHashes: [Record: (reason: String, identity: [Int64])] = [:]

    package init(file: URL) {
        self.file = file
    }

    /// The modification time of a `stat`, in nanoseconds since 1970.
    package static func modified(_ status: stat) -> Int64 {
        #if canImport(Darwin)
        Int64(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(status.st_mtimespec.tv_nsec)
        #else
        Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        #endif
    }

    /// Appends `records` and makes them durable (the file, and its directory entry when it is new)
    /// before returning.
    package func add(_ records: [Record]) throws(StorageError) {
        guard !records.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = ""
        for record in records {
            guard BlobStore.isValidHash(record.hash), let json = try? encoder.encode(record) else { throw .invalidHash(record.hash) }
            let line = String(decoding: json, as: UTF8.self)
            text += String(format: "%08x ", CRC32.checksum(Array(line.utf8))) + line + "\n"
        }
        lock.lock()
        defer { lock.unlock() }
        do {
            loadIfNeeded()
            let isNew = StorageFile.fileSize(file.path) == nil
            let output = try StorageFile.open(file.path, flags: O_WRONLY | O_CREAT | O_APPEND)
            defer { output.close() }
            try output.write(Array(text.utf8), at: 0)
            try output.sync()
            if isNew { try StorageFile.syncDirectory(file.deletingLastPathComponent().path) }
            for record in records { insert(record) }
        }
    }

    /// The records of files that held `hash` when added.
    package func records(for hash: String) -> [Record] {
        lock.withLock {
            loadIfNeeded()
            return byHash[hash] ?? []
        }
    }

    /// How many files are kept in place.
    package var count: Int {
        lock.withLock {
            loadIfNeeded()
            return recordCount
        }
    }

    /// Every record, in no particular order.
    package var all: [Record] {
        lock.withLock {
            loadIfNeeded()
            return byHash.values.flatMap { $0 }
        }
    }

    /// Records that `record`'s file, as `status` describes it, did not hash to its record's hash
    /// when read.
    package func markChanged(_ record: Record, reason: String, status: stat) {
        lock.withLock { failedHashes[record] = (reason, Self.identity(status)) }
    }

    /// Why `record`'s file cannot serve its bytes now (it is gone, its size or modification time
    /// changed, or the same file's bytes were found to differ), or nil when it is as added.
    package func problem(with record: Record) -> String? {
        var status = stat()
        guard stat(record.path, &status) == 0 else { return errno == ENOENT ? "gone" : "unreadable (\(String(cString: strerror(errno))))" }
        if let failed = lock.withLock({ failedHashes[record] }) {
            if failed.identity == Self.identity(status) { return failed.reason }
            // Changed again since: looked at anew (its next read hashes it again).
            lock.withLock { _ = failedHashes.removeValue(forKey: record) }
        }
        return Self.difference(record, status)
    }

    /// What tells one state of a file from another: device, inode, size, modification time and
    /// change time (which every write and every setting of the times moves on).
    private static func identity(_ status: stat) -> [Int64] {
        #if canImport(Darwin)
        let changed = Int64(status.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(status.st_ctimespec.tv_nsec)
        #else
        let changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
        #endif
        return [Int64(status.st_dev), Int64(status.st_ino), Int64(status.st_size), modified(status), changed]
    }

    /// How a file's `stat` differs from its record, or nil.
    static func difference(_ record: Record, _ status: stat) -> String? {
        guard status.st_mode & S_IFMT == S_IFREG else { return "changed on disk (no longer a regular file)" }
        if Int(status.st_size) != record.size { return "changed on disk (size \(record.size) -> \(status.st_size) bytes)" }
        if modified(status) != record.modified { return "changed on disk (modified since it was added)" }
        return nil
    }

    /// The files that cannot serve their bytes now, and why.
    package func problems() -> [Problem] {
        all.compactMap { record in problem(with: record).map { Problem(record: record, reason: $0) } }
            .sorted { ($0.record.path, $0.record.hash) < ($1.record.path, $1.record.hash) }
    }

    // MARK: Loading (lock held)

    private func insert(_ record: Record) {
        var list = byHash[record.hash] ?? []
        guard !list.contains(record) else { return }
        list.append(record)
        byHash[record.hash] = list
        recordCount += 1
    }

    /// Reads the file once: lines whose checksum or JSON is bad (a write cut by a crash) are left
    /// out.
    private func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        guard let data = FileManager.default.contents(atPath: file.path) else { return }
        let decoder = JSONDecoder()
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " "),
                  let checksum = UInt32(String(decoding: line.prefix(8), as: UTF8.self), radix: 16) else { continue }
            let json = Array(line.dropFirst(9))
            guard CRC32.checksum(json) == checksum, let record = try? decoder.decode(Record.self, from: Data(json)) else { continue }
            insert(record)
        }
    }
}
