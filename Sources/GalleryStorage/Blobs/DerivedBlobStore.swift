import Foundation
import GalleryIO
import GalleryModel
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Blobs derived from the originals of `BlobStore`: thumbnails, named by the original's hash and
/// their long edge, `DIR/blobs/derived/ab/<hash>-<size>.jpg`, and why an original yields none,
/// `DIR/blobs/derived/ab/<hash>.failed` (one line of text).
///
/// Each file is written to `DIR/blobs/derived/tmp/`, fsynced and renamed into place (mode 0600):
/// a reader sees a whole thumbnail or none, also after a crash. A thumbnail can always be made
/// again from its original or fetched again from a peer, so the fan-out directory is not fsynced.
///
/// Thread-safe: every operation is a single file-system call sequence on its own names; the byte
/// count is kept under a lock.
package final class DerivedBlobStore: Sendable {
    /// The longest failure reason kept.
    static let maximumReasonLength = 300

    /// `DIR/blobs/derived`.
    package let path: String
    /// `DIR/blobs/derived/tmp`.
    let temporaryPath: String
    /// The bytes of the thumbnails stored, once counted.
    private let bytes = Mutex<Int?>(nil)

    /// Opens the store under the node directory `directory`, creating `blobs/derived/` and its
    /// `tmp/` as needed and removing temporary files left by an interrupted write.
    package init(directory: URL) throws(StorageError) {
        path = directory.appendingPathComponent("blobs").appendingPathComponent("derived").path
        temporaryPath = path + "/tmp"
        try StorageFile.makeDirectory(directory.path)
        try StorageFile.makeDirectory(directory.appendingPathComponent("blobs").path)
        try StorageFile.makeDirectory(path)
        try StorageFile.makeDirectory(temporaryPath)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporaryPath)) ?? [] {
            StorageFile.remove(temporaryPath + "/" + name)
        }
    }

    /// The path of the thumbnail of `hash` with long edge `size`; nil for an invalid hash or size.
    func path(of hash: String, size: Int) -> String? {
        guard FieldLimits.isContentHash(hash), size > 0, size < 1 << 16 else { return nil }
        return "\(path)/\(hash.prefix(2))/\(hash)-\(size).jpg"
    }

    /// The path of the failure record of `hash`; nil for an invalid hash.
    func failurePath(of hash: String) -> String? {
        guard FieldLimits.isContentHash(hash) else { return nil }
        return "\(path)/\(hash.prefix(2))/\(hash).failed"
    }

    /// The stored thumbnail, or nil.
    package func thumbnail(of hash: String, size: Int) -> [UInt8]? {
        guard let file = path(of: hash, size: size), let contents = FileManager.default.contents(atPath: file) else { return nil }
        return Array(contents)
    }

    /// Whether the thumbnail is stored.
    package func hasThumbnail(of hash: String, size: Int) -> Bool {
        path(of: hash, size: size).flatMap(StorageFile.fileSize) != nil
    }

    /// Stores a thumbnail atomically; an invalid hash or size throws `invalidHash`.
    package func storeThumbnail(_ jpeg: [UInt8], of hash: String, size: Int) throws(StorageError) {
        guard let destination = path(of: hash, size: size) else { throw .invalidHash(hash) }
        let replaced = StorageFile.fileSize(destination) ?? 0
        try write(jpeg, to: destination)
        bytes.withLock { bytes in if bytes != nil { bytes! += jpeg.count - replaced } }
    }

    /// Why no thumbnail of `hash` can be made, if recorded.
    package func failure(of hash: String) -> String? {
        guard let file = failurePath(of: hash), let contents = FileManager.default.contents(atPath: file), !contents.isEmpty else { return nil }
        return String(decoding: contents, as: UTF8.self)
    }

    /// Records why no thumbnail of `hash` can be made (cut to `maximumReasonLength` bytes).
    package func recordFailure(_ reason: String, of hash: String) throws(StorageError) {
        guard let destination = failurePath(of: hash) else { throw .invalidHash(hash) }
        // Not fsynced: a record lost in a crash only means the picture is tried once more (and an
        // empty one, torn, counts as none).
        try write(Array(String(reason.prefix(Self.maximumReasonLength)).utf8), to: destination, sync: false)
    }

    /// The bytes of the thumbnails stored: counted once by listing the store, then kept.
    package func storedBytes() -> Int {
        if let known = bytes.withLock({ $0 }) { return known }
        var total = 0
        let fanOuts = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for fanOut in fanOuts where fanOut.utf8.count == 2 {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path + "/" + fanOut)) ?? [] where name.hasSuffix(".jpg") {
                total += StorageFile.fileSize(path + "/" + fanOut + "/" + name) ?? 0
            }
        }
        return bytes.withLock { bytes in
            if bytes == nil { bytes = total }
            return bytes!
        }
    }

    /// Writes `contents` to a temporary file (0600), fsyncs it (unless `sync` is false) and renames
    /// it to `destination`.
    private func write(_ contents: [UInt8], to destination: String, sync: Bool = true) throws(StorageError) {
        let fanOut = String(destination[..<destination.lastIndex(of: "/")!])
        try StorageFile.makeDirectory(fanOut)
        let temporary = "\(temporaryPath)/\(UUID().uuidString).tmp"
        let file = try StorageFile.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        do throws(StorageError) {
            defer { file.close() }
            try file.write(contents, at: 0)
            if sync { try file.sync() }
        } catch {
            StorageFile.remove(temporary)
            throw error
        }
        do throws(StorageError) {
            try StorageFile.rename(temporary, to: destination)
        } catch {
            StorageFile.remove(temporary)
            throw error
        }
    }
}
