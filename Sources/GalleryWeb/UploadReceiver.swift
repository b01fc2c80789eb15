import Foundation
import GalleryCrypto
import GalleryModel
import GalleryNode

/// The bytes of one upload as they arrive: written to a temporary file and hashed on the way
/// (never the whole file in memory); the first 1 MiB is kept for the image header.
///
/// Used by one connection's lane of the web workers at a time.
final class UploadReceiver: @unchecked Sendable {
    /// The upload's ID.
    let upload: String
    /// Its placeholder.
    let item: OpID
    /// What was announced.
    let file: Upload.File
    /// The temporary file.
    let url: URL
    /// The first bytes (up to 1 MiB), for the header.
    private(set) var head: [UInt8] = []
    /// Bytes received so far.
    private(set) var received = 0
    private var hasher = SHA256()
    private var handle: FileHandle?
    private var digest: String?
    private var lastProgress = Date.distantPast

    /// True at most every 100 ms: when a `progress` event is due.
    func progressDue() -> Bool {
        let now = Date()
        guard now.timeIntervalSince(lastProgress) >= 0.1 else { return false }
        lastProgress = now
        return true
    }

    /// The most bytes kept for the header (a JPEG's SOF may follow its metadata).
    static let headLength = 1 << 20

    init(upload: String, item: OpID, file: Upload.File, directory: URL) throws {
        self.upload = upload
        self.item = item
        self.file = file
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("upload-\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    /// Appends the next bytes.
    func append(_ bytes: [UInt8]) throws {
        if head.count < Self.headLength { head += bytes.prefix(Self.headLength - head.count) }
        bytes.withUnsafeBytes { hasher.update($0) }
        received += bytes.count
        try handle?.write(contentsOf: bytes)
    }

    /// The SHA-256 (hex) of the bytes received, once `close` was called.
    var hash: String { digest ?? "" }

    /// Syncs and closes the file; the hash is final.
    func close() throws {
        guard let handle else { return }
        self.handle = nil
        try handle.synchronize()
        try handle.close()
        let final = hasher
        digest = SHA256.hex(final.finalize())
    }

    /// Removes the temporary file.
    func discard() {
        try? handle?.close()
        handle = nil
        try? FileManager.default.removeItem(at: url)
    }
}
