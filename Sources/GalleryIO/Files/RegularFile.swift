import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Opening a file to read it whole without ever blocking: a FIFO, a device or a directory is
/// refused at once instead of holding the caller (a command slot) until someone writes to it.
package enum RegularFile {
    /// Why a path could not be opened as a regular file.
    package enum Failure: Error, Hashable, Sendable, LocalizedError {
        /// `open` or `fstat` failed.
        case cannotOpen(path: String, errno: Int32)
        /// The path names something that is not a regular file (the kind is named).
        case notRegular(path: String, kind: String)

        package var errorDescription: String? {
            switch self {
            case .cannotOpen(let path, let code): "cannot read \(path): \(String(cString: strerror(code)))"
            case .notRegular(let path, let kind): "\(path) is \(kind), not a regular file"
            }
        }
    }

    /// Opens `path` for reading without blocking (`O_NONBLOCK`, so a FIFO does not wait for a
    /// writer), checks with `fstat` that it is a regular file, and returns the descriptor
    /// (close-on-exec; reads of a regular file never wait on `O_NONBLOCK` anyway).
    package static func openForReading(_ path: String) throws(Failure) -> Int32 {
        try openWithStatus(path).fd
    }

    /// Opens `path` as `openForReading` does and returns the descriptor with the `fstat` that
    /// checked it (its size and modification time, read once).
    package static func openWithStatus(_ path: String) throws(Failure) -> (fd: Int32, status: stat) {
        var fd: Int32
        repeat {
            fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .cannotOpen(path: path, errno: code)
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            throw .notRegular(path: path, kind: describe(kind))
        }
        return (fd, info)
    }

    /// Checks that `path` is a readable regular file, without blocking.
    package static func check(_ path: String) throws(Failure) {
        close(try openForReading(path))
    }

    /// The first `maximumLength` bytes of a regular file (fewer when it is shorter), read
    /// without blocking as `openForReading` does.
    package static func prefix(of path: String, maximumLength: Int) throws(Failure) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maximumLength)
        var count = 0
        while count < maximumLength {
            let result = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, maximumLength - count) }
            if result < 0 && errno == EINTR { continue }
            guard result >= 0 else { throw .cannotOpen(path: path, errno: errno) }
            if result == 0 { break }
            count += result
        }
        return Array(bytes[..<count])
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
