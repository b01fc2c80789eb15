import Foundation
import GalleryCrypto
import GalleryModel

/// A node's `oplog` as bytes, for tests that damage or forge it as a faulty disk or an attacker
/// would: its records (length, CRC32, one op each) found by walking the lengths.
struct OpLogBytes {
    /// The file's bytes.
    var bytes: [UInt8]

    /// Reads the file.
    init(_ url: URL) throws {
        bytes = Array(try Data(contentsOf: url))
    }

    /// Writes the file back.
    func write(to url: URL) throws {
        try Data(bytes).write(to: url)
    }

    /// The byte range of each record, payload included, in file order.
    var records: [Range<Int>] {
        var ranges: [Range<Int>] = []
        var offset = 6
        while offset + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            guard offset + 8 + length <= bytes.count else { break }
            ranges.append(offset..<(offset + 8 + length))
            offset += 8 + length
        }
        return ranges
    }

    /// The op of the record at `index`.
    func op(at index: Int) throws -> Op {
        let range = records[index]
        return try OpCodec.decode(Array(bytes[(range.lowerBound + 8)..<range.upperBound]))[0]
    }

    /// Flips every bit of one byte in the middle of the payload of the record at `index`.
    mutating func flipByte(inRecord index: Int) {
        let range = records[index]
        bytes[(range.lowerBound + 8 + range.upperBound) / 2] ^= 0xFF
    }

    /// Replaces the record at `index` by a record of `op` with a valid CRC32: a forged log.
    mutating func replace(record index: Int, with op: Op) {
        let payload = OpCodec.encode([op])
        var record: [UInt8] = []
        for value in [UInt32(payload.count), CRC32.checksum(payload)] {
            record += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        bytes.replaceSubrange(records[index], with: record + payload)
    }

    /// The index of the record holding the op with this ID.
    func index(of id: OpID) throws -> Int? {
        try records.indices.first { try op(at: $0).id == id }
    }
}
