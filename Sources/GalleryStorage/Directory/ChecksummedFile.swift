import Foundation
import GalleryCrypto

/// A small file holding one value, checksummed and replaced whole (`DIR/peers`, the address book).
///
/// Layout: the 8 ASCII bytes `GSBOOK01`, the JSON's length (u32 little-endian), its CRC-32 (u32
/// little-endian), then the JSON. A write goes to a temporary file, is synced and renamed over
/// the old one, so that after a crash (even `kill -9`) the file is the old value or the new one,
/// never a mix. A file that is cut, has bytes changed, or does not decode is reported as damaged,
/// with the reason, and not used.
package struct ChecksummedFile<Value: Codable & Sendable>: Sendable {
    /// The file.
    package let file: URL
    /// The first bytes of the file.
    static var magic: [UInt8] { Array("GSBOOK01".utf8) }

    /// A value kept in `file`.
    package init(file: URL) {
        self.file = file
    }

    /// What reading the file found.
    package enum Contents: Sendable {
        /// There is no file.
        case absent
        /// The file held this value.
        case loaded(Value)
        /// The file is damaged (why); its value is lost.
        case damaged(String)
    }

    /// Reads the value.
    package func load() -> Contents {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return FileManager.default.fileExists(atPath: file.path) ? .damaged("cannot be read") : .absent
        }
        let bytes = Array(data)
        let header = Self.magic.count + 8
        guard bytes.count >= header, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            return .damaged("not an address book file (\(bytes.count) bytes, no header)")
        }
        let length = Int(Self.u32(bytes, at: Self.magic.count))
        let checksum = Self.u32(bytes, at: Self.magic.count + 4)
        guard bytes.count - header == length else {
            return .damaged("cut: \(bytes.count - header) bytes of \(length)")
        }
        let body = Array(bytes[header...])
        guard CRC32.checksum(body) == checksum else { return .damaged("checksum mismatch") }
        do {
            return .loaded(try JSONDecoder().decode(Value.self, from: Data(body)))
        } catch {
            return .damaged("cannot decode: \(error.localizedDescription)")
        }
    }

    /// Replaces the file with `value` (temporary file, fsync, rename; mode 0600).
    package func save(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = Array(try encoder.encode(value))
        var bytes = Self.magic
        for word in [UInt32(body.count), CRC32.checksum(body)] {
            bytes += [UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
                      UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24)]
        }
        bytes += body
        try NodeDirectory(url: file.deletingLastPathComponent()).writeAtomically(bytes, to: file)
    }

    private static func u32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }
}
