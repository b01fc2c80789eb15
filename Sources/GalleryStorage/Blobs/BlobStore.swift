import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Image bytes stored by content: `DIR/blobs/ab/abcdef…` named by their SHA-256 in lowercase hex.
///
/// Every blob is written to a file in `DIR/blobs/tmp/`, fsynced, hashed as it is written and
/// renamed into place only when its hash is known to match; the fan-out directory is fsynced after
/// the rename. A blob already present is never written again, so the same bytes are stored once,
/// whichever thread or transfer brings them. A transfer from a peer goes through a `BlobWriter`,
/// which keeps its partial file (`tmp/<hash>.partial`) so that it can resume after a restart.
// unchecked Sendable: the transfers in progress are under `lock`, which also serializes installing blobs (renames)
package final class BlobStore: @unchecked Sendable {
    /// The size of the chunks in which files are copied and hashed.
    static let chunkLength = 1 << 20

    /// The node directory given at creation.
    package let directory: URL
    /// `DIR/blobs`.
    let blobsPath: String
    /// `DIR/blobs/tmp`.
    let temporaryPath: String

    /// The files served from where they are (`gallery add --in-place`): `DIR/in-place`.
    package let inPlace: InPlaceFiles

    private let lock = NSLock()
    private var receiving: Set<String> = []

    /// Opens the store under `directory`, creating it, `blobs/` and `blobs/tmp/` as needed, and removes
    /// temporary files left by interrupted writes (partial transfers are kept for resuming unless
    /// `keepPartialTransfers` is false). A second user of a store that a node has open (`gallery add`)
    /// passes `removingTemporaryFiles: false`: those files are the node's writes in progress.
    package init(directory: URL, keepPartialTransfers: Bool = true, removingTemporaryFiles: Bool = true) throws(StorageError) {
        self.directory = directory
        blobsPath = directory.appendingPathComponent("blobs").path
        temporaryPath = blobsPath + "/tmp"
        inPlace = InPlaceFiles(file: directory.appendingPathComponent("in-place"))
        try StorageFile.makeDirectory(directory.path)
        if try StorageFile.makeDirectory(blobsPath) {
            try StorageFile.syncDirectory(directory.path)
        }
        try StorageFile.makeDirectory(temporaryPath)
        let names = removingTemporaryFiles ? (try? FileManager.default.contentsOfDirectory(atPath: temporaryPath)) ?? [] : []
        for name in names {
            let isPartial = name.hasSuffix(".partial") && Self.isValidHash(String(name.dropLast(8)))
            if !isPartial || !keepPartialTransfers { StorageFile.remove(temporaryPath + "/" + name) }
        }
    }

    /// Whether `text` is a SHA-256 as the store names blobs: 64 lowercase hex characters.
    package static func isValidHash(_ text: String) -> Bool {
        FieldLimits.isContentHash(text)
    }

    /// Stores `bytes` and returns their SHA-256 (hex); bytes already stored are not written again.
    @discardableResult
    package func put(_ bytes: [UInt8]) throws(StorageError) -> String {
        let hash = SHA256.hex(SHA256.hash(bytes))
        if contains(hash) { return hash }
        let temporary = try makeTemporaryFile()
        var hasher = SHA256()
        do throws(StorageError) {
            defer { temporary.file.close() }
            let appender = try DirectAppender(file: temporary.file, length: 0, expectedLength: bytes.count)
            let result = bytes.withUnsafeBytes { buffer in
                hasher.update(buffer)
                return Result { () throws(StorageError) in try appender.append(buffer) }
            }
            try result.get()
            try appender.flush()
            try temporary.file.sync()
        } catch {
            StorageFile.remove(temporary.path)
            throw error
        }
        // The bytes written were hashed on their way to the file: they must be the bytes asked for.
        let written = SHA256.hex(hasher.finalize())
        guard written == hash else {
            StorageFile.remove(temporary.path)
            throw .hashMismatch(expected: hash, actual: written)
        }
        try install(temporary.path, as: hash)
        return hash
    }

    /// Stores the contents of a regular file and returns their hash and size: read straight into a
    /// `DirectAppender`'s aligned buffer, hashed there, written from it with direct I/O (no copy in
    /// this process), then fsynced and installed.
    @discardableResult
    package func put(contentsOf source: URL) throws(StorageError) -> (hash: String, size: Int) {
        let stored = try store(contentsOf: source, sync: true)
        try install(stored.temporary, as: stored.hash)
        return (stored.hash, stored.size)
    }

    /// Takes a file of the store's `tmp/` that the caller wrote, fsynced and hashed as the blob
    /// `hash` of `size` bytes: renamed into place (no copy) and its directory fsynced. A file
    /// elsewhere is copied and checked; one of another size is refused.
    package func adopt(_ file: URL, hash: String, size: Int) throws(StorageError) {
        guard Self.isValidHash(hash) else { throw .invalidHash(hash) }
        guard file.path.hasPrefix(temporaryPath + "/") else {
            let stored = try put(contentsOf: file)
            guard stored.hash == hash, stored.size == size else { throw .hashMismatch(expected: hash, actual: stored.hash) }
            return
        }
        guard let actual = StorageFile.fileSize(file.path), actual == size else {
            throw .sizeMismatch(hash: hash, expected: size, actual: StorageFile.fileSize(file.path) ?? 0)
        }
        try install(file.path, as: hash)
    }

    /// Copies a regular file into a new temporary file of the store, hashing it on the way, and
    /// returns the temporary file's path, the hash and the size. With `sync`, the copy is fsynced;
    /// without, the caller makes it durable (`syncFileSystem`) before `install`ing it.
    package func store(contentsOf source: URL, sync: Bool) throws(StorageError) -> (temporary: String, hash: String, size: Int) {
        // Never blocks on a FIFO or a device swapped in after the caller's checks.
        let input: StorageFile
        do {
            input = StorageFile(fd: try RegularFile.openForReading(source.path), path: source.path)
        } catch {
            throw .io(operation: "open (\(error.localizedDescription))", path: source.path, errno: EINVAL)
        }
        defer { input.close() }
        let temporary = try makeTemporaryFile()
        var hasher = SHA256()
        var size = 0
        do throws(StorageError) {
            defer { temporary.file.close() }
            let appender = try DirectAppender(file: temporary.file, length: 0, expectedLength: try? input.size())
            while true {
                let chunk = try appender.append(reading: { buffer throws(StorageError) in try input.read(into: buffer, at: size) })
                if chunk.isEmpty { break }
                hasher.update(chunk)
                size += chunk.count
            }
            try appender.flush()
            if sync { try temporary.file.sync() }
        } catch {
            StorageFile.remove(temporary.path)
            throw error
        }
        return (temporary.path, SHA256.hex(hasher.finalize()), size)
    }

    /// Makes every file of the store's file system durable at once (`syncfs`; a `sync` where
    /// that is missing): one flush for many temporary files written without their own fsync.
    package func syncFileSystem() throws(StorageError) {
        let directory = try StorageFile.open(temporaryPath, flags: O_RDONLY)
        defer { directory.close() }
        if let syncfs = Self.syncfs {
            while syncfs(directory.fd) != 0 {
                if errno != EINTR { throw .io(operation: "syncfs", path: temporaryPath, errno: errno) }
            }
        } else {
            sync()
        }
    }

    /// Linux's `syncfs(2)`, looked up at run time: the Glibc module does not export it (it needs
    /// `_GNU_SOURCE`); nil elsewhere.
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Moves temporary files written by `store(contentsOf:sync:)` (and made durable) into place as
    /// their blobs (or removes those whose blob is already there), then fsyncs each directory whose
    /// entries changed once: for many blobs, one directory sync per fan-out directory, not per blob.
    /// With `syncingDirectories` false the renames are left for the caller to make durable (one
    /// `syncFileSystem()` for the whole batch, `install(verified:)`).
    package func install(batch: [(temporary: String, hash: String)], syncingDirectories: Bool = true) throws(StorageError) {
        var changed: Set<String> = []
        var madeFanOut = false
        lock.lock()
        defer { lock.unlock() }
        for (temporary, hash) in batch {
            guard Self.isValidHash(hash), temporary.hasPrefix(temporaryPath + "/") else { throw .invalidHash(hash) }
            if StorageFile.fileSize(path(of: hash)) != nil {
                StorageFile.remove(temporary)
                continue
            }
            let fanOut = "\(blobsPath)/\(hash.prefix(2))"
            if try StorageFile.makeDirectory(fanOut) { madeFanOut = true }
            try StorageFile.rename(temporary, to: path(of: hash))
            changed.insert(fanOut)
        }
        guard syncingDirectories else { return }
        if madeFanOut { try StorageFile.syncDirectory(blobsPath) }
        // Concurrent fsyncs of one file system share its journal commits: up to 256 directories
        // cost a few commits, not one each.
        let directories = changed.sorted()
        let failures = Mutex<[StorageError]>([])
        DispatchQueue.concurrentPerform(iterations: min(16, directories.count)) { worker in
            for index in stride(from: worker, to: directories.count, by: 16) {
                do throws(StorageError) {
                    try StorageFile.syncDirectory(directories[index])
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    /// Stores the blobs of writers that verified their bytes (`BlobWriter.verify()`), durably, with
    /// two flushes for all of them: one `syncfs` makes every partial file durable, then each is
    /// renamed into place (`install(batch:)`) and a second `syncfs` makes the renames durable
    /// (instead of an fsync of every directory whose entries changed).
    /// When this returns, every blob is durable under its name; a crash before leaves partial files
    /// (resumed, and verified again, at the next fetch) or blobs nothing names yet. Writers not
    /// accepted by `verify()` are left out. Every writer may be made again afterwards, even when
    /// this throws.
    package func install(verified writers: [BlobWriter]) throws(StorageError) {
        defer { for writer in writers { writer.endVerified() } }
        let batch = writers.compactMap { writer in writer.verifiedPath.map { (temporary: $0, hash: writer.hash) } }
        guard !batch.isEmpty else { return }
        try syncFileSystem()
        try install(batch: batch, syncingDirectories: false)
        try syncFileSystem()
    }

    /// Whether the store holds the blob (false for anything that is not a valid hash).
    package func contains(_ hash: String) -> Bool {
        size(of: hash) != nil
    }

    /// The blob's length in bytes, or nil if the store does not hold it (in `blobs/`, or in a file
    /// kept in place that is as it was added).
    package func size(of hash: String) -> Int? {
        guard Self.isValidHash(hash) else { return nil }
        if let size = StorageFile.fileSize(path(of: hash)) { return size }
        return inPlace.records(for: hash).first { inPlace.problem(with: $0) == nil }?.size
    }

    /// Reads up to `length` bytes of a blob from `offset`; fewer only at the blob's end, none at it.
    package func read(_ hash: String, offset: Int, length: Int) throws(StorageError) -> [UInt8] {
        guard Self.isValidHash(hash) else { throw .invalidHash(hash) }
        let file: StorageFile
        do {
            file = try StorageFile.open(path(of: hash), flags: O_RDONLY)
        } catch .io(_, _, ENOENT) {
            throw .blobNotFound(hash)
        }
        defer { file.close() }
        let size = try file.size()
        guard offset >= 0, length >= 0, offset <= size else {
            throw .rangeOutOfBounds(hash: hash, offset: offset, length: length, size: size)
        }
        return try file.read(count: min(length, size - offset), at: offset)
    }

    /// Starts (or resumes) receiving the blob `hash` of `size` bytes; the writer's `resumeOffset`
    /// says how many bytes a partial file from an earlier attempt already holds.
    package func makeWriter(expecting hash: String, size: Int) throws(StorageError) -> BlobWriter {
        guard Self.isValidHash(hash) else { throw .invalidHash(hash) }
        guard size >= 0 else { throw .sizeMismatch(hash: hash, expected: size, actual: 0) }
        lock.lock()
        guard receiving.insert(hash).inserted else {
            lock.unlock()
            throw .transferInProgress(hash)
        }
        lock.unlock()
        do throws(StorageError) {
            return try BlobWriter(store: self, hash: hash, size: size, path: temporaryPath + "/\(hash).partial")
        } catch {
            endReceiving(hash)
            throw error
        }
    }

    /// Removes a stored blob (an original evicted from a node's cache); nothing when it is not
    /// stored. A reader that has it open keeps reading it.
    package func remove(_ hash: String) throws(StorageError) {
        guard Self.isValidHash(hash) else { throw .invalidHash(hash) }
        lock.lock()
        defer { lock.unlock() }
        guard StorageFile.fileSize(path(of: hash)) != nil else { return }
        guard unlink(path(of: hash)) == 0 || errno == ENOENT else { throw .io(operation: "unlink", path: path(of: hash), errno: errno) }
    }

    /// Opens a stored blob to read it (for fetches served from it).
    ///
    /// - Throws: `StorageError.io` when the store holds no such blob (or it cannot be opened).
    /// A blob of `blobs/` is opened as it is; else a file kept in place whose size and
    /// modification time still match its record, checked against the hash as it is read
    /// (`BlobFile`).
    package func openForReading(_ hash: String) throws(StorageError) -> BlobFile {
        let stored: StorageFile
        do {
            stored = try StorageFile.open(path(of: hash), flags: O_RDONLY)
        } catch .io(let operation, let path, ENOENT) {
            if let kept = openKeptInPlace(hash) { return kept }
            throw .io(operation: operation, path: path, errno: ENOENT)
        }
        do {
            return BlobFile(file: stored, size: try stored.size())
        } catch {
            stored.close()
            throw error
        }
    }

    /// The first file kept in place for `hash` that opens and still matches its record.
    private func openKeptInPlace(_ hash: String) -> BlobFile? {
        for record in inPlace.records(for: hash) where inPlace.problem(with: record) == nil {
            guard let opened = try? RegularFile.openWithStatus(record.path) else { continue }
            guard InPlaceFiles.difference(record, opened.status) == nil else {
                close(opened.fd)
                continue
            }
            return BlobFile(file: StorageFile(fd: opened.fd, path: record.path), record: record, index: inPlace)
        }
        return nil
    }

    /// The final path of a blob (the hash must be valid).
    func path(of hash: String) -> String {
        "\(blobsPath)/\(hash.prefix(2))/\(hash)"
    }

    /// Forgets that a writer is receiving `hash`.
    func endReceiving(_ hash: String) {
        lock.lock()
        receiving.remove(hash)
        lock.unlock()
    }

    /// Renames a verified, fsynced temporary file into place, or removes it if the blob is already
    /// there; then fsyncs the directories whose entries changed.
    func install(_ temporary: String, as hash: String) throws(StorageError) {
        let fanOut = "\(blobsPath)/\(hash.prefix(2))"
        lock.lock()
        defer { lock.unlock() }
        if StorageFile.fileSize(path(of: hash)) != nil {
            StorageFile.remove(temporary)
            return
        }
        do throws(StorageError) {
            if try StorageFile.makeDirectory(fanOut) { try StorageFile.syncDirectory(blobsPath) }
            try StorageFile.rename(temporary, to: path(of: hash))
        } catch {
            StorageFile.remove(temporary)
            throw error
        }
        try StorageFile.syncDirectory(fanOut)
    }

    /// Creates a new, uniquely named temporary file for writing.
    private func makeTemporaryFile() throws(StorageError) -> (file: StorageFile, path: String) {
        let path = "\(temporaryPath)/\(UUID().uuidString).tmp"
        return (try StorageFile.open(path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600), path)
    }
}
