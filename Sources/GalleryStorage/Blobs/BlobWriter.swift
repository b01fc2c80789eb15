import Foundation
import GalleryCrypto
import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Receives one blob from a transfer: bytes are appended to `tmp/<hash>.partial` and become the
/// blob only when `finish()` finds exactly the announced size and hash.
///
/// Each byte is hashed once, from the caller's buffer, and copied once, into a `DirectAppender`'s
/// aligned buffer, which writes it to the file with direct I/O; the partial block at the end
/// reaches the file at `checkpoint()`, `suspend()` and `finish()`.
///
/// The partial file outlives the writer (and the process) unless the transfer fails: a later
/// `makeWriter` for the same hash resumes at `resumeOffset`. `checkpoint()` makes the bytes so far
/// durable. A wrong hash or too many bytes delete the partial file: the next attempt starts at 0.
// unchecked Sendable: a lock around a C resource: the descriptor, the hasher and the count are touched under `lock`
package final class BlobWriter: @unchecked Sendable {
    /// The SHA-256 the bytes must have.
    package let hash: String
    /// The announced length.
    package let size: Int
    /// Bytes already held when the writer was made (from a partial file of an earlier attempt).
    package let resumeOffset: Int

    private let store: BlobStore
    private let path: String
    private let lock = NSLock()
    private var file: StorageFile?
    private var appender: DirectAppender?
    private var hasher = SHA256()
    private var count: Int
    /// Whether `verify()` accepted the bytes and the blob waits for `BlobStore.install(verified:)`.
    private var awaitingInstall = false

    init(store: BlobStore, hash: String, size: Int, path: String) throws(StorageError) {
        self.store = store
        self.hash = hash
        self.size = size
        self.path = path
        let file = try StorageFile.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        do throws(StorageError) {
            var held = try file.size()
            if held > size {
                try file.truncate(to: 0)
                held = 0
            }
            // The hash of the bytes already held, so that appending continues the same digest.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BlobStore.chunkLength, alignment: 16)
            defer { buffer.deallocate() }
            var offset = 0
            while offset < held {
                let read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, held - offset)]), at: offset)
                guard read > 0 else { break }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
                offset += read
            }
            if offset < held { try file.truncate(to: offset) }
            count = offset
            resumeOffset = offset
            appender = try DirectAppender(file: file, length: offset, expectedLength: size)
            self.file = file
        } catch {
            file.close()
            throw error
        }
    }

    deinit {
        if let file {
            try? appender?.flush()
            file.close()
            store.endReceiving(hash)
        } else if awaitingInstall {
            store.endReceiving(hash)
        }
    }

    /// Bytes held so far, including `resumeOffset`.
    package var receivedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// Appends the next bytes of the blob; more bytes than announced abandon the transfer.
    package func append(_ bytes: [UInt8]) throws(StorageError) {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(StorageError) in try append(buffer) } }
        try result.get()
    }

    /// Appends the next bytes of the blob from a buffer the caller keeps: hashed from it, then
    /// copied once into the direct-I/O staging buffer. More bytes than announced abandon the
    /// transfer.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file, let appender else { throw .closed(path: path) }
        guard bytes.count <= size - count else {
            abandon(file)
            throw .sizeMismatch(hash: hash, expected: size, actual: count + bytes.count)
        }
        hasher.update(bytes)
        try appender.append(bytes)
        count += bytes.count
    }

    /// Writes and fsyncs the bytes received so far, so that a restart resumes after them.
    package func checkpoint() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file, let appender else { throw .closed(path: path) }
        try appender.flush()
        try file.sync()
    }

    /// Verifies size and hash, then moves the bytes into the store. Fewer bytes than announced throw
    /// `sizeMismatch` and leave the writer open for more; a wrong hash throws `hashMismatch` and
    /// deletes the partial file.
    package func finish() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: path) }
        try verifyAndWrite(file, sync: true)
        defer { store.endReceiving(hash) }
        try store.install(path, as: hash)
    }

    /// Verifies size and hash and writes the last bytes to the partial file, without making them
    /// durable nor storing the blob: `BlobStore.install(verified:)` does both for many writers at
    /// once (one `syncfs` for the lot, not an fsync per blob). Until then the partial file stays
    /// (a crash leaves it to be resumed and verified again) and no other writer of the hash is
    /// made. Fewer bytes than announced throw `sizeMismatch` and leave the writer open for more; a
    /// wrong hash throws `hashMismatch` and deletes the partial file.
    package func verify() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { throw .closed(path: path) }
        try verifyAndWrite(file, sync: false)
        awaitingInstall = true
    }

    /// The partial file of a writer that `verify()` accepted, for `BlobStore.install(verified:)`;
    /// nil otherwise.
    var verifiedPath: String? {
        lock.lock()
        defer { lock.unlock() }
        return awaitingInstall ? path : nil
    }

    /// Stores alone, durably, the blob of a writer that `verify()` accepted: fsyncs its partial
    /// file, then moves it into place (what `finish()` does); nothing for any other writer.
    package func storeVerified() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard awaitingInstall else { return }
        awaitingInstall = false
        defer { store.endReceiving(hash) }
        let file = try StorageFile.open(path, flags: O_RDONLY)
        defer { file.close() }
        try file.sync()
        try store.install(path, as: hash)
    }

    /// Ends a writer accepted by `verify()` once its blob is installed (or could not be): another
    /// writer of the hash may be made again.
    func endVerified() {
        lock.lock()
        defer { lock.unlock() }
        guard awaitingInstall else { return }
        awaitingInstall = false
        store.endReceiving(hash)
    }

    /// Checks the bytes held against the announced size and hash, writes the staged bytes to the
    /// partial file (and fsyncs it when `sync`), then closes it. A wrong hash or a failed write
    /// deletes the partial file. Caller holds `lock`.
    private func verifyAndWrite(_ file: StorageFile, sync: Bool) throws(StorageError) {
        guard count == size else { throw .sizeMismatch(hash: hash, expected: size, actual: count) }
        let actual = SHA256.hex(hasher.finalize())
        hasher = SHA256()
        guard actual == hash else {
            abandon(file)
            throw .hashMismatch(expected: hash, actual: actual)
        }
        do throws(StorageError) {
            try appender?.flush()
            if sync { try file.sync() }
        } catch {
            abandon(file)
            throw error
        }
        file.close()
        self.file = nil
        appender = nil
    }

    /// Gives up on the transfer and deletes the partial file.
    package func cancel() {
        lock.lock()
        defer { lock.unlock() }
        if let file { abandon(file) }
    }

    /// Stops writing but keeps the partial file for a later resume.
    package func suspend() {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { return }
        // The bytes staged reach the partial file, for a later resume (unsynced: a crash may cut
        // them, and the resume then starts from what the file holds).
        try? appender?.flush()
        file.close()
        self.file = nil
        appender = nil
        store.endReceiving(hash)
    }

    /// Closes and deletes the partial file (lock held).
    private func abandon(_ file: StorageFile) {
        file.close()
        StorageFile.remove(path)
        self.file = nil
        appender = nil
        store.endReceiving(hash)
    }
}
