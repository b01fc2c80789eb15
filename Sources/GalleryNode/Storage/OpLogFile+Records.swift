import GalleryCrypto
import GalleryModel
import GalleryWire

/// Encoding records, and reading them back up to the first damaged one.
extension OpLogFile {
    /// What a scan of the records found.
    struct Scan {
        /// The ops of the intact records after the skipped ones, in file order.
        var ops: [Op]
        /// The offset just past the last intact record.
        var validEnd: Int
        /// Why the scan stopped before the end of the file.
        var reason: String?
        /// Intact records.
        var records = 0
        /// Ops in the intact records, skipped ones included.
        var opCount = 0
    }

    /// Encodes one record per op, concatenated.
    static func encodeRecords(_ ops: [Op]) throws(StorageError) -> [UInt8] {
        var batch: [UInt8] = []
        batch.reserveCapacity(ops.count * 48)
        for op in ops {
            batch += try encodeRecord(OpCodec.encode([op]))
        }
        return batch
    }

    /// Frames one payload as a record: length, CRC32, payload.
    static func encodeRecord(_ payload: [UInt8]) throws(StorageError) -> [UInt8] {
        guard payload.count <= maximumPayloadLength else {
            throw .recordTooLarge(bytes: payload.count, limit: maximumPayloadLength)
        }
        var record: [UInt8] = []
        record.reserveCapacity(recordHeaderLength + payload.count)
        appendLittleEndian(UInt32(payload.count), to: &record)
        appendLittleEndian(CRC32.checksum(payload), to: &record)
        record.append(contentsOf: payload)
        return record
    }

    /// Reads the records after the header of a file of `size` bytes until the end or the first
    /// torn, oversized, corrupt or undecodable record, decoding only the records that hold ops
    /// after the first `skip`.
    ///
    /// Reads go through a window of at least 1 MiB; a record's declared length is checked against
    /// the limit and the bytes left in the file before the window grows to hold it, so memory stays
    /// bounded by the file's real size however corrupt the length is.
    static func scanRecords(
        in file: StorageFile, size: Int, format: Format = .records, skipping skip: Int = 0
    ) throws(StorageError) -> Scan {
        var window = Window(file: file, size: size)
        var scan = Scan(ops: [], validEnd: headerLength)
        var offset = headerLength
        func stop(_ reason: String) -> Scan {
            scan.validEnd = offset
            scan.reason = reason
            return scan
        }
        while offset < size {
            let left = size - offset
            guard left >= recordHeaderLength else {
                return stop("torn record header at offset \(offset): \(left) of \(recordHeaderLength) bytes")
            }
            guard try window.load(offset, count: recordHeaderLength) else {
                return stop("file shrank while it was read at offset \(offset)")
            }
            let length = Int(window.littleEndian32(at: offset))
            let checksum = window.littleEndian32(at: offset + 4)
            guard length > 0, length <= maximumPayloadLength else {
                return stop("record at offset \(offset) declares \(length) bytes (allowed 1...\(maximumPayloadLength))")
            }
            guard length <= left - recordHeaderLength else {
                return stop("torn record at offset \(offset): declares \(length) bytes, \(left - recordHeaderLength) present")
            }
            guard try window.load(offset, count: recordHeaderLength + length) else {
                return stop("file shrank while it was read at offset \(offset)")
            }
            let payload = window.bytes(at: offset + recordHeaderLength, count: length)
            guard CRC32.checksum(payload) == checksum else {
                return stop("checksum mismatch in record at offset \(offset)")
            }
            var counter = ByteReader(payload)
            let count = (try? counter.varint()) ?? 0
            guard count >= 1, count <= UInt64(format.maximumOpsPerRecord) else {
                return stop(format.maximumOpsPerRecord == 1
                    ? "record at offset \(offset) holds \(count) ops instead of one"
                    : "record at offset \(offset) holds \(count) ops")
            }
            if scan.opCount + Int(count) > skip {
                do {
                    // This node's own ops: those an earlier version stored outside today's
                    // `FieldLimits` are kept, not cut as damage.
                    let decoded = try OpCodec.decode(payload, checkingBounds: false)
                    scan.ops += decoded.dropFirst(max(0, skip - scan.opCount))
                } catch {
                    return stop("record at offset \(offset) does not decode: \(error.localizedDescription)")
                }
            }
            scan.records += 1
            scan.opCount += Int(count)
            offset += recordHeaderLength + length
        }
        scan.validEnd = offset
        return scan
    }

    private static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }
}

/// A read window over a file: the bytes at `start..<start + bytes.count`.
private struct Window {
    static let minimumLength = 1 << 20

    let file: StorageFile
    let size: Int
    var start = 0
    var bytes: [UInt8] = []

    init(file: StorageFile, size: Int) {
        self.file = file
        self.size = size
    }

    /// Makes the window cover `offset..<offset + count` (which must lie within `size`); false if
    /// the file turned out shorter than that.
    mutating func load(_ offset: Int, count: Int) throws(StorageError) -> Bool {
        if offset >= start && offset + count <= start + bytes.count { return true }
        let length = min(max(Self.minimumLength, count), size - offset)
        bytes = try file.read(count: length, at: offset)
        start = offset
        return bytes.count >= count
    }

    func littleEndian32(at offset: Int) -> UInt32 {
        let index = offset - start
        return UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
            | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
    }

    func bytes(at offset: Int, count: Int) -> [UInt8] {
        Array(bytes[(offset - start)..<(offset - start + count)])
    }
}
