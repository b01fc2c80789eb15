import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A node's snapshot: the encoded state of its replica (`Replica.encodedState()`) in one
/// checksummed file, replaced whole, so that a start loads it instead of replaying every op.
///
/// Layout (integers little-endian):
/// ```
/// file   = magic:"GSSN" version:u16 (currently 1) length:u64 crc:u32 state
/// state  = length bytes to the end of the file    crc = CRC32 (IEEE) of the state
/// ```
/// A snapshot is a cache: every op it holds is also in the op files, so a snapshot that is missing,
/// cut short, corrupt, from another format version or of another replica is ignored (and the
/// replica rebuilt from the op files), never repaired.
enum SnapshotFile {
    /// The first bytes of every snapshot.
    static let magic: [UInt8] = Array("GSSN".utf8)
    /// The format version written; the only one read.
    static let formatVersion: UInt16 = 1
    /// Bytes before the state: magic, version, length, CRC32.
    static let headerLength = 18

    /// What reading a snapshot found.
    enum Outcome {
        /// There is no snapshot.
        case missing
        /// The snapshot's replica.
        case loaded(Replica)
        /// The snapshot cannot be used, for this reason.
        case unusable(String)
    }

    /// Writes a snapshot of `replica` at `url`: to `url.tmp`, synced, renamed over `url`, and the
    /// directory synced. A crash at any point leaves the previous snapshot or the new one, whole.
    static func write(_ replica: Replica, to url: URL) throws(StorageError) {
        let state = replica.encodedState()
        var header = magic
        header += withUnsafeBytes(of: formatVersion.littleEndian) { Array($0) }
        header += withUnsafeBytes(of: UInt64(state.count).littleEndian) { Array($0) }
        header += withUnsafeBytes(of: CRC32.checksum(state).littleEndian) { Array($0) }

        let temporary = url.path + ".tmp"
        StorageFile.remove(temporary)
        let file = try StorageFile.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL)
        do throws(StorageError) {
            defer { file.close() }
            try file.write(header, at: 0)
            try file.write(state, at: headerLength)
            try file.sync()
        } catch {
            StorageFile.remove(temporary)
            throw error
        }
        try StorageFile.rename(temporary, to: url.path)
        try StorageFile.syncDirectory(url.deletingLastPathComponent().path)
    }

    /// Reads the snapshot at `url`, checking its header, length and checksum before decoding it.
    ///
    /// - Parameter bufferLimit: The most early ops the restored replica holds.
    static func read(from url: URL, bufferLimit: Int = 100_000) -> Outcome {
        let path = url.path
        guard let size = StorageFile.fileSize(path) else { return .missing }
        let bytes: [UInt8]
        do {
            let file = try StorageFile.open(path, flags: O_RDONLY)
            defer { file.close() }
            bytes = try file.read(count: size, at: 0)
        } catch {
            return .unusable(error.localizedDescription)
        }
        guard bytes.count >= headerLength else {
            return .unusable("\(bytes.count) bytes, shorter than its \(headerLength)-byte header")
        }
        guard Array(bytes.prefix(4)) == magic else { return .unusable("not a snapshot (wrong magic)") }
        var reader = ByteReader(bytes, offset: 4)
        guard let version = try? reader.fixed16(), let length = try? reader.fixed64(),
              let checksum = try? reader.fixed32() else { return .unusable("unreadable header") }
        guard version == formatVersion else {
            return .unusable("format version \(version), this build reads \(formatVersion)")
        }
        guard length == UInt64(bytes.count - headerLength) else {
            return .unusable("holds \(bytes.count - headerLength) bytes of state, its header says \(length)")
        }
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[headerLength...])) }
        guard crc.value == checksum else { return .unusable("checksum mismatch") }
        do {
            return .loaded(try Replica(decodingState: bytes, offset: headerLength, bufferLimit: bufferLimit))
        } catch {
            return .unusable("state does not decode: \(error.localizedDescription)")
        }
    }
}
