import Foundation
import GalleryCrypto
import GalleryIO
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Many files copied into a blob store at once (`gallery add FOLDER`), with the least work per
/// file: each file is opened once, its first megabyte read once into the worker's buffer (the
/// caller inspects its header there, before anything is written), hashed there and written to a
/// temporary file of the store without an fsync of its own; `install` then makes the whole batch
/// durable with one `syncfs`, renames every file into place and syncs once more.
///
/// A file that fits the buffer (up to 1 MiB: most photos' thumbnails, every small image) costs
/// seven system calls: open, fstat, read, open, write, close, close (from 64 KiB, its pages after
/// the first are written with direct I/O: two writes and two `fcntl`s more, `writeWhole`). Larger
/// files continue through a `DirectAppender` (direct I/O from the same buffer), as
/// `BlobStore.store` does.
///
/// Why no fsync per file is safe: nothing names a blob before `install` returns (the caller sends
/// its command only then); a crash before leaves temporary files, removed at the node's next
/// start, and perhaps blobs renamed into place, each synced before its rename and so whole (a
/// content-addressed blob that nothing names is harmless and is reused by the next import).
///
/// Thread-safe: any number of threads may call `store` at once, each with its own `Buffer`.
package final class BlobImporter: Sendable {
    /// The bytes read at once, and the largest file written with one buffered write.
    package static let bufferLength = 1 << 20

    /// A worker's reading buffer (aligned for direct I/O); one per thread.
    package final class Buffer {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: BlobImporter.bufferLength, alignment: DirectAppender.blockSize)

        package init() {}

        deinit {
            bytes.deallocate()
        }
    }

    /// A file copied into the store's `tmp/`, not yet durable nor in place.
    package struct Stored: Sendable, Hashable {
        /// The temporary file.
        package var temporary: String
        /// SHA-256 of the bytes, lowercase hex.
        package var hash: String
        /// Bytes copied.
        package var size: Int
    }

    /// What became of one file.
    package enum Outcome: Sendable {
        case stored(Stored)
        /// The file could not be read, or `inspect` refused it (the reason); nothing was written.
        case skipped(String)
    }

    private let store: BlobStore
    /// Names this importer's temporary files apart from any other's.
    private let prefix: String
    private let counter = Atomic<Int>(0)

    package init(store: BlobStore) {
        self.store = store
        prefix = "import-\(getpid())-\(UInt32.random(in: .min ... .max))"
    }

    /// Copies the regular file at `path` into a new temporary file of the store, hashing it on the
    /// way. `inspect` sees the file's first bytes (up to `bufferLength`) first and returns why it
    /// is refused, or nil.
    ///
    /// - Throws: `StorageError` when the store cannot be written (the source's own problems are
    ///   `.skipped`).
    package func store(_ path: String, buffer: Buffer, inspect: (UnsafeRawBufferPointer) -> String?) throws(StorageError) -> Outcome {
        let input: (fd: Int32, status: stat)
        do {
            input = try RegularFile.openWithStatus(path)
        } catch {
            return .skipped(error.localizedDescription)
        }
        defer { close(input.fd) }
        let source = StorageFile(fd: input.fd, path: path)
        let first: Int
        do throws(StorageError) {
            // As many bytes as `fstat` said, up to the buffer: one read for a file that fits.
            let wanted = min(buffer.bytes.count, max(0, Int(input.status.st_size)))
            first = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<wanted]), at: 0)
        } catch {
            return .skipped(error.localizedDescription)
        }
        let head = UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<first])
        if let refusal = inspect(head) { return .skipped(refusal) }
        let temporary = "\(store.temporaryPath)/\(prefix)-\(counter.add(1, ordering: .relaxed).oldValue).tmp"
        let output = try StorageFile.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        var hasher = SHA256()
        hasher.update(head)
        var size = first
        do throws(StorageError) {
            defer { output.close() }
            if first < buffer.bytes.count {
                // The whole file, from the buffer (see `writeWhole`).
                try Self.writeWhole(head, to: output)
            } else {
                let appender = try DirectAppender(file: output, length: 0, expectedLength: Int(input.status.st_size))
                try appender.append(head)
                while true {
                    let chunk = try appender.append(reading: { piece throws(StorageError) in try source.read(into: piece, at: size) })
                    if chunk.isEmpty { break }
                    hasher.update(chunk)
                    size += chunk.count
                }
                try appender.flush()
            }
        } catch {
            StorageFile.remove(temporary)
            throw error
        }
        return .stored(Stored(temporary: temporary, hash: SHA256.hex(hasher.finalize()), size: size))
    }

    /// The smallest file whose pages after the first are written with direct I/O (see `writeWhole`).
    package static let directFrom = 64 << 10

    /// Whether files of `directFrom` bytes or more are written with direct I/O (not with
    /// `GALLERY_BUFFERED_BLOBS` in the environment, as for `DirectAppender`: every file buffered,
    /// to measure one against the other in the same run).
    static let writesDirect = ProcessInfo.processInfo.environment["GALLERY_BUFFERED_BLOBS"] == nil

    /// Writes a whole file held in the worker's (page-aligned) buffer to the new temporary file.
    ///
    /// A file under `directFrom` bytes: one buffered write (a direct write per small file would
    /// wait on the device each time; `install`'s one sync writes them all back at once). A larger
    /// one: its first page buffered (the node reads the image header there, from the page cache),
    /// the whole pages after it with direct I/O straight from the buffer, the partial page at the
    /// end buffered. On this project's VMs a buffered write into new page-cache pages costs more
    /// than the device's write (`DirectAppender`), and the `syncfs` of `install` then has only the
    /// first and last pages of each file left to write: 1,000 files of 100 KiB were stored in
    /// 0.37-0.52 s direct against 0.71-1.67 s buffered, alternated (BENCHMARKS.md, "Import of
    /// 1,000 x 100 KiB"). Where direct I/O is refused, the rest is written buffered.
    static func writeWhole(_ bytes: UnsafeRawBufferPointer, to output: StorageFile) throws(StorageError) {
        let page = DirectAppender.blockSize
        let whole = bytes.count - bytes.count % page
        guard writesDirect, bytes.count >= directFrom, DirectAppender.directFlag != 0 else {
            try output.write(bytes, at: 0)
            return
        }
        try output.write(UnsafeRawBufferPointer(rebasing: bytes[0..<page]), at: 0)
        let middle = UnsafeRawBufferPointer(rebasing: bytes[page..<whole])
        let flags = fcntl(output.fd, F_GETFL)
        if flags >= 0, fcntl(output.fd, F_SETFL, flags | DirectAppender.directFlag) == 0 {
            defer { _ = fcntl(output.fd, F_SETFL, flags) }
            do {
                try output.write(middle, at: page)
            } catch .io(_, _, EINVAL) {
                // This file system refuses direct I/O.
                _ = fcntl(output.fd, F_SETFL, flags)
                try output.write(middle, at: page)
            }
        } else {
            try output.write(middle, at: page)
        }
        if whole < bytes.count { try output.write(UnsafeRawBufferPointer(rebasing: bytes[whole...]), at: whole) }
    }

    /// A file to keep where it is (`gallery add --in-place`): what it held when hashed.
    package struct Fingerprint: Sendable, Hashable {
        package var hash: String
        package var size: Int
        /// Its modification time, nanoseconds since 1970 (`InPlaceFiles.modified`).
        package var modified: Int64
    }

    /// What became of one file to keep in place.
    package enum FingerprintOutcome: Sendable {
        case hashed(Fingerprint)
        /// The file could not be read, or `inspect` refused it (the reason).
        case skipped(String)
    }

    /// Hashes the regular file at `path` where it is (nothing is written), reading it once in
    /// pieces of the buffer's size; `inspect` sees its first bytes first and returns why it is
    /// refused, or nil. The size and modification time are those of the `fstat` made when it was
    /// opened; a file that changed while it was read is skipped.
    package static func fingerprint(_ path: String, buffer: Buffer, inspect: (UnsafeRawBufferPointer) -> String?) -> FingerprintOutcome {
        let input: (fd: Int32, status: stat)
        do {
            input = try RegularFile.openWithStatus(path)
        } catch {
            return .skipped(error.localizedDescription)
        }
        defer { close(input.fd) }
        let source = StorageFile(fd: input.fd, path: path)
        var hasher = SHA256()
        var size = 0
        do throws(StorageError) {
            while true {
                let read = try source.read(into: buffer.bytes, at: size)
                if size == 0, let refusal = inspect(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<read])) { return .skipped(refusal) }
                if read == 0 { break }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<read]))
                size += read
            }
        } catch {
            return .skipped(error.localizedDescription)
        }
        var after = stat()
        guard fstat(input.fd, &after) == 0, size == Int(input.status.st_size), Int(after.st_size) == size,
              InPlaceFiles.modified(after) == InPlaceFiles.modified(input.status) else {
            return .skipped("changed while it was read")
        }
        return .hashed(Fingerprint(hash: SHA256.hex(hasher.finalize()), size: size, modified: InPlaceFiles.modified(input.status)))
    }

    /// Makes the batch durable (one `syncfs`), renames every file into place as its blob (a blob
    /// already there is replaced by the same bytes) and syncs the renames (one more `syncfs`):
    /// on return every blob of the batch is durable under its name.
    package func install(_ batch: [Stored]) throws(StorageError) {
        try store.syncFileSystem()
        var fanOuts = Set((try? FileManager.default.contentsOfDirectory(atPath: store.blobsPath)) ?? [])
        for file in batch {
            guard BlobStore.isValidHash(file.hash), file.temporary.hasPrefix(store.temporaryPath + "/") else {
                throw .invalidHash(file.hash)
            }
            let fanOut = String(file.hash.prefix(2))
            if fanOuts.insert(fanOut).inserted { try StorageFile.makeDirectory("\(store.blobsPath)/\(fanOut)") }
            try StorageFile.rename(file.temporary, to: store.path(of: file.hash))
        }
        try store.syncFileSystem()
    }

    /// Removes the temporary files of a batch that will not be installed.
    package func discard(_ batch: [Stored]) {
        for file in batch { StorageFile.remove(file.temporary) }
    }
}
