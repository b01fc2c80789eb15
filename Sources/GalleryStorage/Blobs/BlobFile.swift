import Foundation
import GalleryCrypto
import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A blob opened for reading (`BlobStore.openForReading`): a file of `blobs/`, read as it is, or a
/// file kept in place (`InPlaceFiles`), whose bytes are checked against their hash before any is
/// returned.
///
/// For a file kept in place the first read hashes the whole file (streaming, 1 MiB at a time,
/// from the descriptor opened when its size and modification time still matched the record) and
/// fails if the hash differs; the reads that follow come from the same descriptor, so a file
/// replaced by a rename meanwhile still serves the bytes verified. Reads from the start onwards
/// are hashed again as they go, and the read reaching the end fails if the bytes changed in
/// place since: a whole answer never carries bytes other than the hash's. A failure is recorded
/// in `InPlaceFiles` (the file is "changed on disk" from then on).
// unchecked Sendable: a lock around a C resource: the descriptor and the verification state are touched under `lock`
package final class BlobFile: @unchecked Sendable {
    private let file: StorageFile
    private let length: Int
    /// The record and the index of a file kept in place; nil for a file of `blobs/`.
    private let kept: (record: InPlaceFiles.Record, index: InPlaceFiles)?
    private let lock = NSLock()
    // Guarded by `lock`.
    private var verified = false
    private var failure: StorageError?
    private var served = SHA256()
    private var servedUpTo = 0

    /// A file of `blobs/`.
    init(file: StorageFile, size: Int) {
        self.file = file
        self.length = size
        kept = nil
    }

    /// A file kept in place, opened and found to match `record`'s size and modification time.
    init(file: StorageFile, record: InPlaceFiles.Record, index: InPlaceFiles) {
        self.file = file
        self.length = record.size
        kept = (record, index)
    }

    /// Where the bytes are, for messages.
    package var path: String { file.path }

    /// Whether the bytes come from a file kept in place.
    package var isKeptInPlace: Bool { kept != nil }

    /// The blob's size.
    package func size() throws(StorageError) -> Int {
        length
    }

    /// Up to `count` bytes from `offset` (fewer at the end); for a file kept in place, only bytes
    /// checked against the hash.
    package func read(count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
        guard let kept else { return try file.read(count: count, at: offset) }
        lock.lock()
        defer { lock.unlock() }
        try verifyOnce(kept.record, kept.index)
        let bytes = try file.read(count: count, at: offset)
        guard offset == servedUpTo else { return bytes }
        bytes.withUnsafeBytes { served.update($0) }
        servedUpTo += bytes.count
        if servedUpTo >= length {
            let digest = SHA256.hex(served.finalize())
            guard digest == kept.record.hash else { throw fail(kept.record, kept.index, actual: digest) }
        }
        return bytes
    }

    /// Hashes a file kept in place whole against its record, once (a file of `blobs/`: nothing).
    package func verify() throws(StorageError) {
        guard let kept else { return }
        lock.lock()
        defer { lock.unlock() }
        try verifyOnce(kept.record, kept.index)
    }

    /// Closes the file; no read follows.
    package func close() {
        file.close()
    }

    /// The whole file hashed and compared at the first call; the failure found, at every call
    /// (lock held).
    private func verifyOnce(_ record: InPlaceFiles.Record, _ index: InPlaceFiles) throws(StorageError) {
        if let failure { throw failure }
        guard !verified else { return }
        try verifyWhole(record, index)
        verified = true
    }

    /// Hashes the whole file from its descriptor and compares (lock held).
    private func verifyWhole(_ record: InPlaceFiles.Record, _ index: InPlaceFiles) throws(StorageError) {
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { piece.deallocate() }
        var hasher = SHA256()
        var offset = 0
        while true {
            let read = try file.read(into: piece, at: offset)
            if read == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: piece[0..<read]))
            offset += read
        }
        let digest = SHA256.hex(hasher.finalize())
        guard offset == record.size, digest == record.hash else { throw fail(record, index, actual: digest) }
    }

    /// Records the file as changed and returns the error every read gives from now on (lock held).
    private func fail(_ record: InPlaceFiles.Record, _ index: InPlaceFiles, actual: String) -> StorageError {
        var status = stat()
        _ = fstat(file.fd, &status)
        index.markChanged(record, reason: "changed on disk (its bytes no longer hash to \(record.hash.prefix(12))…)", status: status)
        let error = StorageError.hashMismatch(expected: record.hash, actual: actual)
        failure = error
        return error
    }
}
