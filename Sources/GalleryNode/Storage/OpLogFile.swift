import Foundation
import GalleryModel
import GalleryWire

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// An append-only file of ops, one checksummed record per op, recovered up to its last intact record.
///
/// Layout (integers little-endian):
/// ```
/// file    = header record*
/// header  = magic:"GSLG" (4 bytes) version:u16 (currently 1)
/// record  = length:u32 crc:u32 payload      crc = CRC32 (IEEE) of the payload
/// payload = OpCodec.encode([op])            a batch of exactly one op, 1...64 MiB long
/// ```
/// `open(at:)` creates the file (header fsynced, then its directory) or checks the header of an
/// existing one: a file with another magic is refused and never modified. It then reads records in
/// order and stops at the first one that is torn (shorter than its declared length), too long,
/// fails its CRC32, or does not decode as exactly one op; the file is truncated there and fsynced,
/// so later appends follow the last intact record. A declared length is checked against the limit
/// and against the bytes actually left before anything is allocated for it.
///
/// Durability is the caller's choice: `appendAndSync(_:)` before acknowledging a local command,
/// `append(_:)` then one `sync()` per batch of ops received from peers. Each `append` writes its
/// whole batch with one positioned write at the end of the last intact record.
///
/// Thread-safe: `@unchecked Sendable` because the descriptor and the end offset are mutable state
/// that every method reads and writes only while holding `lock`.
public final class OpLogFile: @unchecked Sendable {
    /// The first bytes of every op log file.
    public static let magic: [UInt8] = Array("GSLG".utf8)
    /// The format version written into new files; the only one `open(at:)` reads.
    public static let formatVersion: UInt16 = 1
    /// Bytes of the file header: magic and version.
    public static let headerLength = 6
    /// Bytes before each record's payload: length and CRC32.
    public static let recordHeaderLength = 8
    /// The longest payload a record may declare; a longer declared length is corruption.
    public static let maximumPayloadLength = 64 << 20

    /// Where the log lives.
    public let url: URL

    private let lock = NSLock()
    private var file: StorageFile?
    private var end: Int
    private var records: Int
    private var hasUnsyncedWrites = false
    private var syncs = 0

    private init(url: URL, file: StorageFile, end: Int, records: Int) {
        self.url = url
        self.file = file
        self.end = end
        self.records = records
    }

    deinit {
        file?.close()
    }

    /// Opens the log at `url`, creating it if it does not exist, and returns the ops of its intact
    /// records in order with a report of what was recovered and what was cut off.
    public static func open(at url: URL) throws(StorageError) -> (log: OpLogFile, recovered: [Op], report: RecoveryReport) {
        let path = url.path
        let file: StorageFile
        var isNew = false
        do {
            file = try StorageFile.open(path, flags: O_RDWR | O_CREAT | O_EXCL)
            isNew = true
        } catch .io(_, _, EEXIST) {
            file = try StorageFile.open(path, flags: O_RDWR)
        }
        do throws(StorageError) {
            if isNew {
                try writeHeader(to: file)
                try StorageFile.syncDirectory(url.deletingLastPathComponent().path)
                let log = OpLogFile(url: url, file: file, end: headerLength, records: 0)
                return (log, [], RecoveryReport(records: 0, validBytes: headerLength, droppedBytes: 0, reason: nil))
            }
            let size = try file.size()
            let header = try file.read(count: headerLength, at: 0)
            if header.count < headerLength {
                // A header cut short by a crash during creation is ours only if it is a prefix of ours.
                guard header == Array(expectedHeader.prefix(header.count)) else { throw StorageError.notAnOpLog(path: path) }
                try file.truncate(to: 0)
                try writeHeader(to: file)
                let reason = "incomplete file header (\(header.count) of \(headerLength) bytes) rewritten"
                let log = OpLogFile(url: url, file: file, end: headerLength, records: 0)
                return (log, [], RecoveryReport(records: 0, validBytes: headerLength, droppedBytes: header.count, reason: reason))
            }
            guard Array(header.prefix(4)) == magic else { throw StorageError.notAnOpLog(path: path) }
            let version = UInt16(header[4]) | UInt16(header[5]) << 8
            guard version == formatVersion else { throw StorageError.unsupportedVersion(path: path, version: version) }

            let scan = try scanRecords(in: file, size: size)
            if scan.validEnd < size {
                try file.truncate(to: scan.validEnd)
                try file.sync()
            }
            let report = RecoveryReport(
                records: scan.ops.count, validBytes: scan.validEnd, droppedBytes: size - scan.validEnd, reason: scan.reason)
            let log = OpLogFile(url: url, file: file, end: scan.validEnd, records: scan.ops.count)
            return (log, scan.ops, report)
        } catch {
            file.close()
            throw error
        }
    }

    /// The file's length up to the end of the last record written.
    public var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return end
    }

    /// Records in the file: those recovered at open plus those appended since.
    public var recordCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return records
    }

    /// The fsyncs of appended records since the file was opened (by `sync()`, `appendAndSync(_:)`
    /// and `close()`); a `sync()` with nothing to flush does not count.
    public var syncCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return syncs
    }

    /// Appends one record per op, all with a single write; durable only after `sync()`.
    ///
    /// If the write fails, the file is cut back to its previous end and nothing of the batch counts.
    public func append(_ ops: [Op]) throws(StorageError) {
        guard !ops.isEmpty else { return }
        let batch = try Self.encodeRecords(ops)
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        do {
            try file.write(batch, at: end)
        } catch {
            try? file.truncate(to: end)
            throw error
        }
        end += batch.count
        records += ops.count
        hasUnsyncedWrites = true
    }

    /// Flushes appended records to stable storage (`fsync`); does nothing if all are already synced.
    public func sync() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        guard hasUnsyncedWrites else { return }
        try file.sync()
        syncs += 1
        hasUnsyncedWrites = false
    }

    /// Appends and fsyncs: what a local command does before it is acknowledged.
    public func appendAndSync(_ ops: [Op]) throws(StorageError) {
        try append(ops)
        try sync()
    }

    /// Syncs what is pending and closes the file; later calls throw `closed`.
    public func close() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { return }
        self.file = nil
        defer { file.close() }
        if hasUnsyncedWrites {
            try file.sync()
            syncs += 1
        }
    }

    /// The header of a new file.
    static var expectedHeader: [UInt8] {
        magic + [UInt8(truncatingIfNeeded: formatVersion), UInt8(truncatingIfNeeded: formatVersion >> 8)]
    }

    /// Writes and fsyncs the header of a new (empty) file.
    private static func writeHeader(to file: StorageFile) throws(StorageError) {
        try file.write(expectedHeader, at: 0)
        try file.sync()
    }
}
