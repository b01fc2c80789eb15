import Foundation
import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// An open file descriptor with POSIX calls that retry on `EINTR` and throw `StorageError`.
///
/// A value type over a raw descriptor: whoever opens one closes it exactly once.
package struct StorageFile: Sendable {
    /// The descriptor.
    let fd: Int32
    /// The path it was opened with, for error messages.
    package let path: String

    /// Opens `path` with `flags` (close-on-exec is added) and `mode` for a created file.
    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(StorageError) -> StorageFile {
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return StorageFile(fd: fd, path: path) }
            if errno != EINTR { throw .io(operation: "open", path: path, errno: errno) }
        }
    }

    /// Writes all of `bytes` at `offset`, retrying short writes and `EINTR`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(StorageError) {
        var done = 0
        while done < bytes.count {
            let result = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if result > 0 {
                done += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                throw .io(operation: "write", path: path, errno: result < 0 ? errno : EIO)
            }
        }
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int) throws(StorageError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(StorageError) in try write(buffer, at: offset) }
        }
        try result.get()
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int {
        var done = 0
        while done < buffer.count {
            let result = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if result > 0 {
                done += result
            } else if result == 0 {
                break
            } else if errno != EINTR {
                throw .io(operation: "read", path: path, errno: errno)
            }
        }
        return done
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    package func read(count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: StorageError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(StorageError) {
                initialized = try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// The file's current length.
    package func size() throws(StorageError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "fstat", path: path, errno: errno) }
        return Int(info.st_size)
    }

    /// Flushes the file's data and metadata to stable storage.
    func sync() throws(StorageError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw .io(operation: "fsync", path: path, errno: errno) }
        }
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int) throws(StorageError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw .io(operation: "ftruncate", path: path, errno: errno) }
        }
    }

    /// Closes the descriptor (never retried: on Linux the descriptor is gone even after `EINTR`).
    package func close() {
        _ = systemClose(fd)
    }

    /// Fsyncs a directory, so that entries created or renamed in it are durable.
    static func syncDirectory(_ path: String) throws(StorageError) {
        let directory = try open(path, flags: O_RDONLY | O_DIRECTORY)
        defer { directory.close() }
        try directory.sync()
    }

    /// Creates a directory unless it exists; returns whether it was created.
    @discardableResult
    static func makeDirectory(_ path: String) throws(StorageError) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        let code = errno
        var info = stat()
        if code == EEXIST, stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return false }
        throw .io(operation: "mkdir", path: path, errno: code)
    }

    /// The length of the regular file at `path`, or nil if there is none.
    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Renames `source` to `destination` atomically, replacing it.
    static func rename(_ source: String, to destination: String) throws(StorageError) {
        guard systemRename(source, destination) == 0 else {
            throw .io(operation: "rename to \(destination)", path: source, errno: errno)
        }
    }

    /// Removes a file; a missing file is not an error.
    static func remove(_ path: String) {
        _ = unlink(path)
    }
}

// Free functions reach the C calls that `StorageFile`'s own `open`, `close` and `rename` shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
