import Foundation
import GalleryIO
import GalleryModel
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryCrypto

/// `export`, done by the command line with its user's rights: a blob of DIR's store is streamed
/// through SHA-256 into a temporary file beside the destination, in bounded memory, checked
/// against the hash and size the node gave, synced, and renamed over the destination. A damaged,
/// truncated or missing blob writes nothing and leaves the destination as it was.
package enum BlobExport {
    /// Why an export wrote nothing.
    package enum Failure: Error, Hashable, Sendable, LocalizedError {
        /// The stored bytes do not hash to the item's hash, or are not its size.
        case damaged(String)
        /// A file could not be read or written.
        case io(String)

        package var errorDescription: String? {
            switch self {
            case .damaged(let reason), .io(let reason): reason
            }
        }
    }

    /// The bytes read and hashed at a time.
    static let chunkLength = 1 << 20

    /// The path of a blob in the store of `directory` (the layout of `BlobStore`).
    package static func blobPath(of hash: String, in directory: URL) -> String {
        "\(directory.path)/blobs/\(hash.prefix(2))/\(hash)"
    }

    /// Writes the blob `hash` (of `size` bytes, when known) of `directory`'s store to `destination`;
    /// when `blobs/` lacks it, from the first of `keptAt` (files kept in place) that opens, checked
    /// the same way.
    package static func export(hash: String, size: Int64?, from directory: URL, to destination: URL, keptAt: [String] = []) throws(Failure) {
        guard FieldLimits.isContentHash(hash) else { throw .damaged("the node named no valid SHA-256 for the item (\"\(hash.prefix(80))\")") }
        var source = blobPath(of: hash, in: directory)
        var input: Int32
        do {
            input = try RegularFile.openForReading(source)
        } catch {
            guard let kept = keptAt.lazy.compactMap({ path in (try? RegularFile.openForReading(path)).map { (path, $0) } }).first else {
                throw .io("the bytes are not in \(directory.path)/blobs: \(error.localizedDescription)")
            }
            (source, input) = kept
        }
        defer { close(input) }
        let folder = destination.deletingLastPathComponent().path
        let temporary = "\(folder)/.\(destination.lastPathComponent).\(UUID().uuidString).export"
        var output: Int32
        repeat {
            output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
        } while output < 0 && errno == EINTR
        guard output >= 0 else { throw .io(POSIX.describe("cannot create a file in \(folder)", errno: errno)) }
        var installed = false
        defer {
            if output >= 0 { close(output) }
            if !installed { unlink(temporary) }
        }
        var hasher = SHA256()
        var total: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkLength, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer.baseAddress!, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .io(POSIX.describe("cannot read \(source)", errno: errno)) }
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            hasher.update(chunk)
            if let failure = writeAll(output, chunk) { throw .io(POSIX.describe("cannot write \(temporary)", errno: failure)) }
            total += Int64(count)
        }
        let actual = SHA256.hex(hasher.finalize())
        if let size, total != size {
            throw .damaged("the stored bytes of the item are \(total) bytes, not \(size) (\(source) is truncated or damaged); nothing was written")
        }
        guard actual == hash else {
            throw .damaged("the stored bytes of the item hash to \(actual), not \(hash) (\(source) is damaged); nothing was written")
        }
        // Writing over an existing file keeps its permissions (as `cp` does): an export over a file
        // of mode 0600 must not leave it readable by others.
        var existing = stat()
        if stat(destination.path, &existing) == 0, fchmod(output, existing.st_mode & 0o7777) != 0 {
            throw .io(POSIX.describe("cannot set the mode of \(temporary)", errno: errno))
        }
        guard fsync(output) == 0 else { throw .io(POSIX.describe("cannot sync \(temporary)", errno: errno)) }
        close(output)
        output = -1
        guard rename(temporary, destination.path) == 0 else {
            throw .io(POSIX.describe("cannot write \(destination.path)", errno: errno))
        }
        installed = true
        let directoryFD = open(folder, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Writes all of `bytes`; nil or the `errno`.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var done = 0
        while done < bytes.count {
            let result = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if result > 0 {
                done += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                return result < 0 ? errno : EIO
            }
        }
        return nil
    }
}
