import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// One copy of the record log (`oplog` or `oplog.mirror`) as read at start, unchanged.
struct LogCopy {
    /// The file's bytes (`loadBytes`: only when the two files differ), else empty.
    var bytes: [UInt8]
    /// The file's length.
    var size: Int
    /// Whether its first bytes are the record log's header.
    var headerIntact: Bool
    /// Its records, damaged and intact (with their ops when decoded).
    var scan: OpLogFile.Scan

    /// Reads `file`: its header and a scan of its records, decoding their ops when `decoding`.
    static func read(_ file: StorageFile, decoding: Bool = true) throws(StorageError) -> LogCopy {
        let size = try file.size()
        let header = try file.read(count: min(size, OpLogFile.headerLength), at: 0)
        // A skip past every op: records checked (length, CRC32), not decoded.
        let skip = decoding ? 0 : Int.max / 2
        let scan = size >= OpLogFile.headerLength
            ? try OpLogFile.scanRecords(in: file, size: size, skipping: skip)
            : OpLogFile.Scan(ops: [], validEnd: size)
        return LogCopy(bytes: [], size: size, headerIntact: header == OpLogFile.expectedHeader, scan: scan)
    }

    /// Reads the whole file into `bytes` (when the two files differ and are merged).
    mutating func loadBytes(from file: StorageFile) throws(StorageError) {
        bytes = try file.read(count: size, at: 0)
        guard bytes.count == size else { throw .io(operation: "read", path: "the op log", errno: EIO) }
    }

    /// The bytes of the `index`th intact record (header and payload); `bytes` must be loaded.
    func record(_ index: Int) -> ArraySlice<UInt8> {
        bytes[scan.intactRecords[index]]
    }

    /// Whether this file and `other` are both wholly intact and end alike: the same records.
    func isIntactCopy(of other: LogCopy) -> Bool {
        headerIntact && other.headerIntact && scan.damage.isEmpty && other.scan.damage.isEmpty
            && size == other.size && scan.records == other.scan.records
            && scan.intactRecords.last == other.scan.intactRecords.last
    }
}
