import Foundation
import GalleryCrypto
import GalleryIO
import GalleryWire

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
///
/// Thread-safe: `@unchecked Sendable` because the descriptor, the hasher and the count are mutable
/// state accessed only while holding `lock`.
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

    init(store: BlobStore, hash: String, size: Int, path: String) throws(StorageError) {
        self.store = store
        self.hash = hash
        self.size = size
        self.path = path
        let file = try StorageFile.open(path, flags: O_RDWR | O_CREAT, mode: 0o644)
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
        guard count == size else { throw .sizeMismatch(hash: hash, expected: size, actual: count) }
        let actual = SHA256.hex(hasher.finalize())
        hasher = SHA256()
        guard actual == hash else {
            abandon(file)
            throw .hashMismatch(expected: hash, actual: actual)
        }
        do throws(StorageError) {
            try appender?.flush()
            try file.sync()
        } catch {
            abandon(file)
            throw error
        }
        file.close()
        self.file = nil
        appender = nil
        defer { store.endReceiving(hash) }
        try store.install(path, as: hash)
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
