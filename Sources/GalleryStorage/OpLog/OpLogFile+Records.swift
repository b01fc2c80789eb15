import GalleryCrypto
import GalleryIO
import GalleryModel

/// Encoding records, and reading them back up to the first damaged one.
extension OpLogFile {
    /// What a scan of the records found.
    struct Scan {
        /// The ops of the intact records after the skipped ones, in file order (for the blocks
        /// format, only those before the first damaged record).
        var ops: [Op]
        /// The offset just past the last intact record.
        var validEnd: Int
        /// Why the first damaged bytes are not a record, nil if every byte was an intact record.
        var reason: String?
        /// Intact records.
        var records = 0
        /// The byte range of every intact record (header and payload), in file order.
        var intactRecords: [Range<Int>] = []
        /// Ops in the intact records, skipped ones included.
        var opCount = 0
        /// The damaged byte ranges, each skipped up to the next record that verifies (or the end).
        var damage: [Range<Int>] = []
        /// The intact records after the first damaged range, by byte range.
        var keptAfterDamage: [Range<Int>] = []
        /// Intact records after the first damaged range.
        var recordsAfterDamage = 0
        /// The ops of the intact records after the first damaged range, decoded whatever `skip`
        /// said (the blocks format only: they must move to the record log).
        var displaced: [Op] = []

        /// Bytes of the damaged ranges.
        var damagedBytes: Int { damage.reduce(0) { $0 + $1.count } }
    }

    /// What the bytes at one offset are.
    private enum Examined {
        /// An intact record of `length` payload bytes holding `count` ops (decoded when asked).
        case intact(length: Int, count: Int, ops: [Op]?)
        /// Not an intact record; `next` is where the record would end if its declared length held.
        case damaged(String, next: Int?)
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

    /// Reads the records after the header of a file of `size` bytes, decoding only the records
    /// that hold ops after the first `skip`. A torn, oversized, corrupt or undecodable record is
    /// skipped up to the next offset that holds an intact record (see `resynchronize`), and every
    /// intact record after it is kept; bytes with no intact record after them are a damaged tail.
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
        // Bytes that resynchronisation may check in all: linear in the file, so that a crafted
        // region where every offset looks like the start of a huge record cannot stall the start.
        var resyncBudget = 4 * size + (64 << 20)
        while offset < size {
            let damaged = !scan.damage.isEmpty
            let before = scan.opCount
            switch try examine(at: offset, in: &window, format: format, decode: { damaged || before + $0 > skip }) {
            case .intact(let length, let count, let ops):
                let end = offset + recordHeaderLength + length
                scan.intactRecords.append(offset..<end)
                if damaged {
                    scan.keptAfterDamage.append(offset..<end)
                    scan.recordsAfterDamage += 1
                }
                if let ops {
                    if damaged && format.maximumOpsPerRecord > 1 {
                        scan.displaced += ops
                    } else {
                        scan.ops += ops.dropFirst(max(0, skip - scan.opCount))
                    }
                }
                scan.records += 1
                scan.opCount += count
                scan.validEnd = end
                offset = end
            case .damaged(let reason, let next):
                if scan.reason == nil { scan.reason = reason }
                let resumed = try resynchronize(after: offset, hint: next, in: &window, format: format, budget: &resyncBudget)
                scan.damage.append(offset..<(resumed ?? size))
                offset = resumed ?? size
            }
        }
        return scan
    }

    /// Checks the record at `offset`: header, declared length (against the limit and the bytes
    /// left), CRC32, op count, and (when `decode` says so for that count) that the payload decodes
    /// as that many ops.
    private static func examine(
        at offset: Int, in window: inout Window, format: Format, decode: (Int) -> Bool
    ) throws(StorageError) -> Examined {
        let left = window.size - offset
        guard left >= recordHeaderLength else {
            return .damaged("torn record header at offset \(offset): \(left) of \(recordHeaderLength) bytes", next: nil)
        }
        guard try window.load(offset, count: recordHeaderLength) else {
            return .damaged("file shrank while it was read at offset \(offset)", next: nil)
        }
        let length = Int(window.littleEndian32(at: offset))
        let checksum = window.littleEndian32(at: offset + 4)
        guard length > 0, length <= maximumPayloadLength else {
            return .damaged("record at offset \(offset) declares \(length) bytes (allowed 1...\(maximumPayloadLength))", next: nil)
        }
        guard length <= left - recordHeaderLength else {
            return .damaged(
                "torn record at offset \(offset): declares \(length) bytes, \(left - recordHeaderLength) present", next: nil)
        }
        let next = offset + recordHeaderLength + length
        guard try window.load(offset, count: recordHeaderLength + length) else {
            return .damaged("file shrank while it was read at offset \(offset)", next: nil)
        }
        let payload = window.bytes(at: offset + recordHeaderLength, count: length)
        guard CRC32.checksum(payload) == checksum else {
            return .damaged("checksum mismatch in record at offset \(offset)", next: next)
        }
        var counter = ByteReader(payload)
        let count = (try? counter.varint()) ?? 0
        guard count >= 1, count <= UInt64(format.maximumOpsPerRecord) else {
            return .damaged(format.maximumOpsPerRecord == 1
                ? "record at offset \(offset) holds \(count) ops instead of one"
                : "record at offset \(offset) holds \(count) ops", next: next)
        }
        guard decode(Int(count)) else { return .intact(length: length, count: Int(count), ops: nil) }
        do {
            // This node's own ops: those an earlier version stored outside today's `FieldLimits` are
            // kept, not cut as damage.
            return .intact(length: length, count: Int(count), ops: try OpCodec.decode(payload, checkingBounds: false))
        } catch {
            return .damaged("record at offset \(offset) does not decode: \(error.localizedDescription)", next: next)
        }
    }

    /// Where intact records resume after damaged bytes at `offset`, or nil when none do.
    ///
    /// First the end of the damaged record as its header declares it (`hint`: a flipped byte in
    /// a payload leaves the length right), then every later offset. An offset qualifies only if a
    /// whole record starts there whose CRC32 matches and whose payload decodes as ops, and if it is
    /// followed by the end of the file or by another such record: garbage, or bytes inside a
    /// record's payload, pass both checks with a probability far below 2^-64. A record followed by a
    /// torn tail (a header or a record cut by the end of the file) qualifies too: the tail is cut.
    ///
    /// The bytes checked come out of `budget`, shared by every damaged region of the file; once it
    /// is spent, the rest of the file counts as a damaged tail (bounded work on any input).
    private static func resynchronize(
        after offset: Int, hint: Int?, in window: inout Window, format: Format, budget: inout Int
    ) throws(StorageError) -> Int? {
        /// Whether the record at `position` is cut by the end of the file (a torn tail).
        func isTorn(_ position: Int) throws(StorageError) -> Bool {
            let left = window.size - position
            guard left >= recordHeaderLength else { return true }
            guard try window.load(position, count: recordHeaderLength) else { return true }
            return Int(window.littleEndian32(at: position)) > left - recordHeaderLength
        }
        /// Takes the bytes a check of the record at `position` may read out of the budget (no more
        /// than the file holds after it: a longer declared length is refused from the header).
        func spend(_ position: Int, declaredLength: Int) -> Bool {
            budget -= recordHeaderLength + max(0, min(declaredLength, window.size - position - recordHeaderLength))
            return budget >= 0
        }
        func qualifies(_ candidate: Int, declaredLength: Int) throws(StorageError) -> Bool? {
            guard spend(candidate, declaredLength: declaredLength) else { return nil }
            guard case .intact(let length, _, _) = try examine(at: candidate, in: &window, format: format, decode: { _ in true }) else {
                return false
            }
            let end = candidate + recordHeaderLength + length
            if end == window.size { return true }
            if try isTorn(end) { return true }
            guard try window.load(end, count: recordHeaderLength) else { return false }
            guard spend(end, declaredLength: Int(window.littleEndian32(at: end))) else { return nil }
            guard case .intact = try examine(at: end, in: &window, format: format, decode: { _ in true }) else { return false }
            return true
        }
        if let hint, hint + recordHeaderLength <= window.size, try window.load(hint, count: recordHeaderLength) {
            switch try qualifies(hint, declaredLength: Int(window.littleEndian32(at: hint))) {
            case true?: return hint
            case nil: return nil
            case false?: break
            }
        }
        var candidate = offset + 1
        while candidate + recordHeaderLength < window.size {
            // Cheap filters first: a plausible length and an op count of at least one.
            guard try window.load(candidate, count: recordHeaderLength + 1) else { return nil }
            let length = Int(window.littleEndian32(at: candidate))
            let first = window.bytes(at: candidate + recordHeaderLength, count: 1)[0]
            let plausible = length > 0 && length <= min(maximumPayloadLength, window.size - candidate - recordHeaderLength)
                && (format.maximumOpsPerRecord == 1 ? first == 1 : first != 0)
            if plausible {
                switch try qualifies(candidate, declaredLength: length) {
                case true?: return candidate
                case nil: return nil
                case false?: break
                }
            }
            candidate += 1
        }
        return nil
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
