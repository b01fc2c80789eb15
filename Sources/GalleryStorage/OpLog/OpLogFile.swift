import Foundation
import GalleryIO
import GalleryModel

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// An append-only file of ops in checksummed records, recovered up to its last intact record.
///
/// Layout (integers little-endian):
/// ```
/// file    = header record*
/// header  = magic:"GSLG" (4 bytes) version:u16 (currently 1)
/// record  = length:u32 crc:u32 payload      crc = CRC32 (IEEE) of the payload
/// payload = OpCodec.encode([op])            a batch of exactly one op, 1...64 MiB long
/// ```
/// That is the node's record log (`Format.records`). The same layout with the magic "GSCB" and
/// records that each hold a batch of any number of ops (`Format.blocks`) is its compacted op file,
/// where the ops of many records of the log are moved in blocks of about 1 MiB.
/// `open(at:)` creates the file (header fsynced, then its directory) or checks the header of an
/// existing one: a file with another magic is refused and never modified. It then reads records in
/// order. A record that is torn (shorter than its declared length), too long, fails its CRC32, or
/// does not decode as ops is damaged: it is skipped up to the next offset where an intact record
/// starts (`scanRecords`), and every intact record after it is kept. Damage with no intact record
/// after it is a damaged tail. Before the file is changed, `beforeRepair` is told what was found
/// (the node draws a new replica ID there, so that no op ID is ever reused); then a damaged tail is
/// truncated, and a record log with damage in its middle is rewritten without the damaged bytes
/// (temporary file, synced, renamed), so that later appends follow the last intact record. A
/// compacted op file is cut at its first damage instead; the ops of its intact blocks after it are
/// returned in the report (`displaced`) for the caller to keep elsewhere first. A declared length
/// is checked against the limit and against the bytes actually left before anything is allocated.
///
/// Durability is the caller's choice: `appendAndSync(_:)` before acknowledging a local command,
/// `append(_:)` then one `sync()` per batch of ops received from peers. Each `append` writes its
/// whole batch with one positioned write at the end of the last intact record.
// unchecked Sendable: a lock around a C resource: the descriptor and the end offset are touched under `lock`
package final class OpLogFile: @unchecked Sendable {
    /// The first bytes of every op log file.
    package static let magic: [UInt8] = Array("GSLG".utf8)
    /// The format version written into new files; the only one `open(at:)` reads.
    package static let formatVersion: UInt16 = 1
    /// Bytes of the file header: magic and version.
    package static let headerLength = 6
    /// Bytes before each record's payload: length and CRC32.
    package static let recordHeaderLength = 8
    /// The longest payload a record may declare; a longer declared length is corruption.
    package static let maximumPayloadLength = 64 << 20

    /// What the records of a file hold, and the magic that says so.
    struct Format: Sendable {
        /// The first four bytes of the file.
        let magic: [UInt8]
        /// The most ops one record may hold.
        let maximumOpsPerRecord: Int

        /// The record log: one op per record, appended and synced as ops are applied.
        static let records = Format(magic: OpLogFile.magic, maximumOpsPerRecord: 1)
        /// The compacted op file: batches of ops moved from the record log.
        static let blocks = Format(magic: Array("GSCB".utf8), maximumOpsPerRecord: Int(Int32.max))

        /// The header of a new file.
        var header: [UInt8] {
            magic + [UInt8(truncatingIfNeeded: formatVersion), UInt8(truncatingIfNeeded: formatVersion >> 8)]
        }
    }

    /// Where the log lives.
    package let url: URL

    /// What the records hold.
    let format: Format
    private let lock = NSLock()
    private var file: StorageFile?
    private var end: Int
    private var records: Int
    private var ops: Int
    private var hasUnsyncedWrites = false
    private var syncs = 0
    /// Where the file, its records and ops ended at the last successful sync: what a failed
    /// sync rolls back to.
    private var synced: (end: Int, records: Int, ops: Int)

    /// Wraps an open file whose records were read: it ends at `end`, synced, after `records` records of `ops` ops.
    init(url: URL, format: Format, file: StorageFile, end: Int, records: Int, ops: Int) {
        self.url = url
        self.format = format
        self.file = file
        self.end = end
        self.records = records
        self.ops = ops
        self.synced = (end, records, ops)
    }

    deinit {
        file?.close()
    }

    /// Opens the log at `url`, creating it if it does not exist, and returns the ops of its intact
    /// records in order with a report of what was recovered and what was cut off.
    package static func open(at url: URL) throws(StorageError) -> (log: OpLogFile, recovered: [Op], report: RecoveryReport) {
        try open(at: url, format: .records, skipping: 0, beforeRepair: { _ in })
    }

    /// Opens a file of `format` like `open(at:)`, returning only the ops after the first `skip`
    /// ops: the records that hold nothing but skipped ops are checked (length and CRC32) but not
    /// decoded.
    static func open(
        at url: URL, format: Format, skipping skip: Int,
        beforeRepair: (RecoveryReport) throws(StorageError) -> Void = { _ throws(StorageError) in }
    ) throws(StorageError) -> (log: OpLogFile, recovered: [Op], report: RecoveryReport) {
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
                try writeHeader(format.header, to: file)
                try StorageFile.syncDirectory(url.deletingLastPathComponent().path)
                let log = OpLogFile(url: url, format: format, file: file, end: headerLength, records: 0, ops: 0)
                return (log, [], RecoveryReport(records: 0, validBytes: headerLength, droppedBytes: 0, reason: nil))
            }
            let size = try file.size()
            let header = try file.read(count: headerLength, at: 0)
            if header.count < headerLength {
                // A header cut short by a crash during creation is ours only if it is a prefix of ours.
                guard header == Array(format.header.prefix(header.count)) else { throw StorageError.notAnOpLog(path: path) }
                try file.truncate(to: 0)
                try writeHeader(format.header, to: file)
                let reason = "incomplete file header (\(header.count) of \(headerLength) bytes) rewritten"
                let log = OpLogFile(url: url, format: format, file: file, end: headerLength, records: 0, ops: 0)
                return (log, [], RecoveryReport(records: 0, validBytes: headerLength, droppedBytes: header.count, reason: reason))
            }
            guard Array(header.prefix(4)) == format.magic else { throw StorageError.notAnOpLog(path: path) }
            let version = UInt16(header[4]) | UInt16(header[5]) << 8
            guard version == formatVersion else { throw StorageError.unsupportedVersion(path: path, version: version) }

            let scan = try scanRecords(in: file, size: size, format: format, skipping: skip)
            guard let firstDamage = scan.damage.first?.lowerBound else {
                let report = RecoveryReport(records: scan.records, validBytes: size, droppedBytes: 0, reason: nil)
                let log = OpLogFile(url: url, format: format, file: file, end: size, records: scan.records, ops: scan.opCount)
                return (log, scan.ops, report)
            }
            let rewrites = format.maximumOpsPerRecord == 1 && !scan.keptAfterDamage.isEmpty
            let keptBytes = rewrites ? scan.keptAfterDamage.reduce(firstDamage) { $0 + $1.count } : firstDamage
            let keptRecords = rewrites ? scan.records : scan.records - scan.recordsAfterDamage
            let keptOps = rewrites ? scan.opCount : scan.opCount - scan.displaced.count
            let report = RecoveryReport(
                records: keptRecords, validBytes: keptBytes, droppedBytes: scan.damagedBytes, reason: scan.reason,
                damage: scan.damage, recordsAfterDamage: scan.recordsAfterDamage, displaced: scan.displaced)
            try beforeRepair(report)
            var kept = file
            if rewrites {
                kept = try Self.rewrite(url, from: file, keeping: [headerLength..<firstDamage] + scan.keptAfterDamage)
            } else {
                try file.truncate(to: firstDamage)
                try file.sync()
            }
            let log = OpLogFile(url: url, format: format, file: kept, end: keptBytes, records: keptRecords, ops: keptOps)
            return (log, scan.ops, report)
        } catch {
            file.close()
            throw error
        }
    }

    /// The file's length up to the end of the last record written.
    package var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return end
    }

    /// Records in the file: those recovered at open plus those appended since.
    package var recordCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return records
    }

    /// The fsyncs of appended records since the file was opened (by `sync()`, `appendAndSync(_:)`
    /// and `close()`); a `sync()` with nothing to flush does not count.
    package var syncCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return syncs
    }

    /// Ops in the file: in the records recovered at open plus those appended since.
    var opCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return ops
    }

    /// Where the file ends now, read at once: its length, records and ops.
    var position: (byteCount: Int, records: Int, ops: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (end, records, ops)
    }

    /// Appends one record per op, all with a single write; durable only after `sync()`.
    ///
    /// If the write fails, the file is cut back to its previous end and nothing of the batch counts.
    package func append(_ ops: [Op]) throws(StorageError) {
        guard !ops.isEmpty else { return }
        try write(try Self.encodeRecords(ops), records: ops.count, ops: ops.count)
    }

    /// Appends one record per batch (`OpCodec.encode(_:)` bytes, each of at most
    /// `format.maximumOpsPerRecord` ops), all with a single write; durable only after `sync()`.
    func append(batches: [[UInt8]]) throws(StorageError) {
        guard !batches.isEmpty else { return }
        var bytes: [UInt8] = []
        var count = 0
        for batch in batches {
            var reader = ByteReader(batch)
            let ops = (try? reader.count(limit: format.maximumOpsPerRecord)) ?? 0
            precondition(ops > 0, "a record holds 1 to \(format.maximumOpsPerRecord) ops")
            bytes += try Self.encodeRecord(batch)
            count += ops
        }
        try write(bytes, records: batches.count, ops: count)
    }

    /// Appends records already encoded (`encodeRecords`): `records` records holding `ops` ops, with
    /// a single write; durable only after `sync()`. A mirror writes the very bytes of its primary.
    func append(encoded bytes: [UInt8], records added: Int, ops addedOps: Int) throws(StorageError) {
        guard !bytes.isEmpty else { return }
        try write(bytes, records: added, ops: addedOps)
    }

    /// Forgets everything after `position` (an earlier `position` of this file): the file is cut
    /// there, and what was synced beyond it is written again by later appends. A mirrored log cuts both files back to where both were
    /// synced when one of them fails, so that the same records are written again at the same place.
    func cut(to position: (byteCount: Int, records: Int, ops: Int)) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        guard position.byteCount >= Self.headerLength && position.byteCount <= end else {
            throw .io(operation: "cut back to \(position.byteCount) of \(end) bytes", path: url.path, errno: EINVAL)
        }
        try file.truncate(to: position.byteCount)
        (end, records, ops) = position
        if synced.end > position.byteCount { synced = (position.byteCount, position.records, position.ops) }
        hasUnsyncedWrites = end > synced.end
    }

    /// Writes encoded records at the end of the file; on failure the file is cut back.
    private func write(_ bytes: [UInt8], records added: Int, ops addedOps: Int) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        assert(added > 0 && addedOps >= added && bytes.count > added * Self.recordHeaderLength, "whole records only")
        assert(end >= Self.headerLength, "the log keeps its header")
        do {
            try file.write(bytes, at: end)
        } catch {
            try? file.truncate(to: end)
            throw error
        }
        end += bytes.count
        records += added
        ops += addedOps
        hasUnsyncedWrites = true
    }

    /// Replaces the file by one without its first `count` records, which end at `offset` and hold
    /// `opCount` ops: the records after them (appended since, synced or not) are copied into
    /// `url.tmp`, which is synced and renamed over the file, and the directory is synced, all
    /// before any further append. The ops that are cut must be durable elsewhere first.
    ///
    /// A crash at any point leaves either the old file or the new one, whole. If syncing the
    /// directory fails after the rename, which file a crash would leave is unknown: the log is
    /// closed (later appends throw `closed`) rather than accept ops that could be lost.
    func discardRecords(upTo offset: Int, count: Int, opCount: Int) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        precondition(offset >= Self.headerLength && offset <= end && count <= records, "not a record boundary")
        let tail = try file.read(count: end - offset, at: offset)
        guard tail.count == end - offset else { throw .io(operation: "read", path: url.path, errno: EIO) }
        // The directory is synced below, once the log's state matches the renamed file.
        let fresh = try Self.writeReplacement(format.header + tail, for: url, syncingDirectory: false)
        file.close()
        self.file = fresh
        end = Self.headerLength + tail.count
        records -= count
        ops -= opCount
        hasUnsyncedWrites = false
        synced = (end, records, ops)
        do {
            try StorageFile.syncDirectory(url.deletingLastPathComponent().path)
        } catch {
            self.file = nil
            fresh.close()
            throw error
        }
    }

    /// Flushes appended records to stable storage (`fsync`); does nothing if all are already synced.
    package func sync() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        guard hasUnsyncedWrites else { return }
        do {
            try file.sync()
        } catch {
            // What reached the disk is unknown (a failed fsync may drop dirty pages): forget every
            // record since the last sync, so that they are written again whole, at the same place.
            try? file.truncate(to: synced.end)
            (end, records, ops) = synced
            hasUnsyncedWrites = false
            throw error
        }
        syncs += 1
        hasUnsyncedWrites = false
        synced = (end, records, ops)
    }

    /// Replaces the file by one holding exactly `ops`, one record each: written to `url.tmp`,
    /// synced, renamed over the file, and the directory synced, before any further append.
    func replaceRecords(with ops: [Op]) throws(StorageError) {
        let body = try Self.encodeRecords(ops)
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: url.path) }
        let fresh = try Self.writeReplacement(format.header + body, for: url, syncingDirectory: true)
        file.close()
        self.file = fresh
        end = Self.headerLength + body.count
        records = ops.count
        self.ops = ops.count
        hasUnsyncedWrites = false
        synced = (end, records, self.ops)
    }

    /// Appends and fsyncs: what a local command does before it is acknowledged.
    package func appendAndSync(_ ops: [Op]) throws(StorageError) {
        try append(ops)
        try sync()
    }

    /// Syncs what is pending and closes the file; later calls throw `closed`.
    package func close() throws(StorageError) {
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

    /// The header of a new record log.
    static var expectedHeader: [UInt8] {
        Format.records.header
    }

    /// Writes and fsyncs the header of a new (empty) file.
    private static func writeHeader(_ header: [UInt8], to file: StorageFile) throws(StorageError) {
        try file.write(header, at: 0)
        try file.sync()
    }
}
