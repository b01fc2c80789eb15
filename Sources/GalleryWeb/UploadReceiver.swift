import Foundation
import GalleryCrypto
import GalleryModel
import GalleryNode
import Synchronization

/// The bytes of one upload as they arrive: written to a temporary file and hashed on the way
/// (never the whole file in memory); the first 1 MiB is kept for the image header.
///
/// Used by one connection's lane of the web workers at a time: the lock around its state is never
/// contended (a lock round per chunk is nothing beside hashing it), it lets the compiler check it.
final class UploadReceiver: Sendable {
    /// The bytes so far: the first ones, the count, the running hash and the open file.
    private struct State {
        var head: [UInt8] = []
        var received = 0
        var hasher = SHA256()
        var handle: FileHandle?
        var digest: String?
        var lastProgress = Date.distantPast
    }

    /// The upload's ID.
    let upload: String
    /// Its placeholder.
    let item: OpID
    /// What was announced.
    let file: Upload.File
    /// The temporary file.
    let url: URL
    private let state: Mutex<State>

    /// The first bytes (up to 1 MiB), for the header.
    var head: [UInt8] { state.withLock { $0.head } }
    /// Bytes received so far.
    var received: Int { state.withLock { $0.received } }

    /// True at most every 100 ms: when a `progress` event is due.
    func progressDue() -> Bool {
        let now = Date()
        return state.withLock { state in
            guard now.timeIntervalSince(state.lastProgress) >= 0.1 else { return false }
            state.lastProgress = now
            return true
        }
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
        state = Mutex(State(handle: try FileHandle(forWritingTo: url)))
    }

    /// Appends the next bytes.
    func append(_ bytes: [UInt8]) throws {
        try state.withLock { state in
            if state.head.count < Self.headLength { state.head += bytes.prefix(Self.headLength - state.head.count) }
            bytes.withUnsafeBytes { state.hasher.update($0) }
            state.received += bytes.count
            try state.handle?.write(contentsOf: bytes)
        }
    }

    /// The SHA-256 (hex) of the bytes received, once `close` was called.
    var hash: String { state.withLock { $0.digest ?? "" } }

    /// Syncs and closes the file; the hash is final.
    func close() throws {
        try state.withLock { state in
            guard let handle = state.handle else { return }
            state.handle = nil
            try handle.synchronize()
            try handle.close()
            let final = state.hasher
            state.digest = SHA256.hex(final.finalize())
        }
    }

    /// Removes the temporary file.
    func discard() {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
        }
        try? FileManager.default.removeItem(at: url)
    }
}
