import Foundation
import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Repairing a file whose middle holds damaged records.
extension OpLogFile {
    /// Replaces the file at `url` by its header and the given byte ranges of `file`, through a
    /// synced temporary file renamed over it; closes `file` and returns the new one.
    static func rewrite(
        _ url: URL, from file: StorageFile, keeping ranges: [Range<Int>]
    ) throws(StorageError) -> StorageFile {
        var bytes = try file.read(count: headerLength, at: 0)
        for range in ranges where !range.isEmpty {
            let part = try file.read(count: range.count, at: range.lowerBound)
            guard part.count == range.count else { throw .io(operation: "read", path: url.path, errno: EIO) }
            bytes += part
        }
        let fresh = try writeReplacement(bytes, for: url, syncingDirectory: true)
        file.close()
        return fresh
    }

    /// Writes `bytes` as the new content of the file at `url`: into `url.tmp` (replacing a stale
    /// one), synced, renamed over the file, and, when `syncingDirectory`, the directory synced.
    /// On failure the temporary file is closed and removed and the old file is left as it was
    /// (unless the rename happened); returns the new file, open.
    static func writeReplacement(
        _ bytes: [UInt8], for url: URL, syncingDirectory: Bool
    ) throws(StorageError) -> StorageFile {
        let temporary = url.path + ".tmp"
        StorageFile.remove(temporary)
        let fresh = try StorageFile.open(temporary, flags: O_RDWR | O_CREAT | O_EXCL)
        do throws(StorageError) {
            try fresh.write(bytes, at: 0)
            try fresh.sync()
            try StorageFile.rename(temporary, to: url.path)
            if syncingDirectory { try StorageFile.syncDirectory(url.deletingLastPathComponent().path) }
        } catch {
            fresh.close()
            StorageFile.remove(temporary)
            throw error
        }
        return fresh
    }
}
