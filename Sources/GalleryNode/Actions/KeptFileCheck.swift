import Foundation
import GalleryIO

/// The node's check of a file the command line hashed to keep in place (`add --in-place`): it must
/// still be a regular file of the size and modification time the command line saw, else the hash
/// it sent may not be the file's.
enum KeptFileCheck {
    /// The first `maximumLength` bytes of the file (for its header), once its size and
    /// modification time are found to be those given.
    static func prefix(of path: String, size: Int, modified: Int64, maximumLength: Int) throws -> [UInt8] {
        let opened = try RegularFile.openWithStatus(path)
        defer { close(opened.fd) }
        #if canImport(Darwin)
        let time = Int64(opened.status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(opened.status.st_mtimespec.tv_nsec)
        #else
        let time = Int64(opened.status.st_mtim.tv_sec) * 1_000_000_000 + Int64(opened.status.st_mtim.tv_nsec)
        #endif
        guard Int(opened.status.st_size) == size, time == modified else {
            throw ActionError.fileChanged(path)
        }
        var bytes = [UInt8](repeating: 0, count: min(maximumLength, size))
        var count = 0
        while count < bytes.count {
            let result = bytes.withUnsafeMutableBytes { pread(opened.fd, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { break }
            count += result
        }
        return Array(bytes[..<count])
    }
}
