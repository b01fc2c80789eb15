import Foundation
import GalleryIO
import GalleryModel

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Opening the log and its mirror: each file's damage read back from the other.
extension MirroredOpLog {
    /// What opening the two files found and did.
    struct Opened {
        /// Both files, open, holding the same bytes.
        var log: MirroredOpLog
        /// The ops of the records kept, in order.
        var ops: [Op]
        /// What was read, and what neither file held intact (`damage`: lost here).
        var report: RecoveryReport
        /// One line per file repaired from the other, for the operator (`StartupReport.repairs`).
        var repairs: [String]
    }

    /// Opens the log at `url` and its mirror at `mirrorURL` (nil: the log alone), creating what is
    /// missing, and returns the ops of every record intact in either.
    ///
    /// - Both files intact and of one length (the usual start): they are the same; the mirror is
    ///   checked (length, CRC32) but not decoded.
    /// - No mirror (a directory of an older version): the log is opened as `OpLogFile.open` does and
    ///   the mirror is made from it. No log but a mirror: the mirror is copied back as the log.
    /// - Otherwise (damage in either, a torn tail, one file longer): `merge` lays both files' intact
    ///   records side by side and keeps each record intact in either. Only bytes damaged in both
    ///   (or that exist in neither) lose records: then, and only then, `beforeRepair` is told
    ///   before any file changes (the node takes a new replica ID). Both files are then rewritten
    ///   with the records kept (temporary file, synced, renamed; the mirror first).
    static func open(
        at url: URL, mirror mirrorURL: URL?,
        beforeRepair: (RecoveryReport) throws(StorageError) -> Void
    ) throws(StorageError) -> Opened {
        guard let mirrorURL else {
            let (log, ops, report) = try OpLogFile.open(at: url, format: .records, skipping: 0, beforeRepair: beforeRepair)
            return Opened(log: MirroredOpLog(primary: log, mirror: nil), ops: ops, report: report, repairs: [])
        }
        var logExists = StorageFile.fileSize(url.path) != nil
        let mirrorExists = StorageFile.fileSize(mirrorURL.path) != nil
        var restoredLog: [String] = []
        if !logExists && mirrorExists {
            // The log is gone and its copy is not: the copy comes back as the log, then both are
            // read as usual.
            let reader = try StorageFile.open(mirrorURL.path, flags: O_RDONLY)
            defer { reader.close() }
            let bytes = try reader.read(count: try reader.size(), at: 0)
            try OpLogFile.writeReplacement(bytes, for: url, syncingDirectory: true).close()
            restoredLog = ["\(url.lastPathComponent): missing; restored from \(mirrorURL.lastPathComponent)"]
            logExists = true
        }
        guard logExists, mirrorExists else {
            return try openCreatingMirror(at: url, mirror: mirrorURL, logExisted: logExists, beforeRepair: beforeRepair)
        }
        let primary = try StorageFile.open(url.path, flags: O_RDWR)
        let mirror: StorageFile
        do {
            mirror = try StorageFile.open(mirrorURL.path, flags: O_RDWR)
        } catch {
            primary.close()
            throw error
        }
        var keep: [StorageFile] = [primary, mirror]
        defer { for file in keep { file.close() } }
        let sides = (try LogCopy.read(primary), try LogCopy.read(mirror, decoding: false))
        guard sides.0.headerIntact || sides.1.headerIntact else {
            // Neither file has this format's header: the log is judged alone (refused if it is not
            // an op log, repaired if its header was cut), and the mirror made again from it.
            for file in keep { file.close() }
            keep = []
            StorageFile.remove(mirrorURL.path)
            return try openCreatingMirror(at: url, mirror: mirrorURL, logExisted: true, beforeRepair: beforeRepair)
        }
        if sides.0.isIntactCopy(of: sides.1) {
            keep = []
            let scan = sides.0.scan
            let log = OpLogFile(url: url, format: .records, file: primary, end: sides.0.size, records: scan.records, ops: scan.opCount)
            let copy = OpLogFile(url: mirrorURL, format: .records, file: mirror, end: sides.1.size, records: scan.records, ops: scan.opCount)
            let report = RecoveryReport(records: scan.records, validBytes: sides.0.size, droppedBytes: 0, reason: nil)
            return Opened(log: MirroredOpLog(primary: log, mirror: copy), ops: scan.ops, report: report, repairs: restoredLog)
        }
        var logCopy = sides.0
        try logCopy.loadBytes(from: primary)
        var mirrorCopy = try LogCopy.read(mirror)
        try mirrorCopy.loadBytes(from: mirror)
        let merge = LogMerge(primary: logCopy, mirror: mirrorCopy, names: (url.lastPathComponent, mirrorURL.lastPathComponent))
        if merge.report.lostRecords { try beforeRepair(merge.report) }
        let contents = OpLogFile.expectedHeader + merge.bytes
        var fresh: [URL: StorageFile] = [:]
        do throws(StorageError) {
            for (target, side) in [(mirrorURL, mirrorCopy), (url, logCopy)] where side.bytes != contents {
                fresh[target] = try OpLogFile.writeReplacement(contents, for: target, syncingDirectory: false)
            }
            if !fresh.isEmpty { try StorageFile.syncDirectory(url.deletingLastPathComponent().path) }
        } catch {
            for file in fresh.values { file.close() }
            throw error
        }
        keep = []
        // A file renamed over is replaced by the fresh one; the old descriptor goes.
        if fresh[url] != nil { primary.close() }
        if fresh[mirrorURL] != nil { mirror.close() }
        let logFile = fresh[url] ?? primary
        let mirrorFile = fresh[mirrorURL] ?? mirror
        let log = OpLogFile(url: url, format: .records, file: logFile, end: contents.count, records: merge.ops.count, ops: merge.ops.count)
        let copy = OpLogFile(url: mirrorURL, format: .records, file: mirrorFile, end: contents.count, records: merge.ops.count, ops: merge.ops.count)
        return Opened(log: MirroredOpLog(primary: log, mirror: copy), ops: merge.ops, report: merge.report, repairs: restoredLog + merge.repairs)
    }

    /// Opens the log alone (`OpLogFile.open`: damage skipped, `beforeRepair` told) and writes its
    /// mirror from it; says so when the log held records (a directory of an older version).
    private static func openCreatingMirror(
        at url: URL, mirror mirrorURL: URL, logExisted: Bool,
        beforeRepair: (RecoveryReport) throws(StorageError) -> Void
    ) throws(StorageError) -> Opened {
        let (log, ops, report) = try OpLogFile.open(at: url, format: .records, skipping: 0, beforeRepair: beforeRepair)
        do throws(StorageError) {
            let reader = try StorageFile.open(url.path, flags: O_RDONLY)
            defer { reader.close() }
            let position = log.position
            let bytes = try reader.read(count: position.byteCount, at: 0)
            guard bytes.count == position.byteCount else { throw .io(operation: "read", path: url.path, errno: EIO) }
            let file = try OpLogFile.writeReplacement(bytes, for: mirrorURL, syncingDirectory: true)
            let copy = OpLogFile(url: mirrorURL, format: .records, file: file, end: position.byteCount, records: position.records, ops: position.ops)
            let repairs = logExisted && position.records > 0
                ? ["\(mirrorURL.lastPathComponent): created from \(url.lastPathComponent) (\(position.records) records)"] : []
            return Opened(log: MirroredOpLog(primary: log, mirror: copy), ops: ops, report: report, repairs: repairs)
        } catch {
            try? log.close()
            throw error
        }
    }
}
