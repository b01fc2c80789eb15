import GalleryIO
import GalleryModel
import GalleryWire
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The chunks of one blob being served to a peer in answer to its `fetch`, read from the store one
/// chunk at a time as the connection's writer has room for them.
///
/// Nothing of a blob is read before the writer asks for it, so a blob of any size costs one chunk
/// of memory per fetch, and the frames of other priorities (ops, heartbeats) never wait behind more
/// than one chunk. Read only by the channel that pulls the connection's outbox (`PeerOutbox`); the
/// file is opened at creation and closed when the stream ends or is dropped. The pulls come one
/// at a time, so the lock around the position is never contended: one round per chunk read.
final class ChunkStream: Sendable {
    /// The requester's ID of the fetch.
    let request: UInt64
    /// The blob's whole size.
    let total: Int
    private let file: any BlobReader
    /// Where the next chunk starts, and whether a chunk was produced yet.
    private let position: Mutex<(offset: Int, produced: Bool)>
    private let end: Int
    private let chunkLength: Int

    /// Opens the blob for a fetch from `offset` of at most `length` bytes (0: to the end).
    ///
    /// - Throws: `StorageError.blobNotFound` when the store does not hold the blob, and
    ///   `rangeOutOfBounds` when `offset` is past its end.
    init(request: FetchRequest, hash: String, store: any BlobSource, chunkLength: Int) throws(StorageError) {
        guard FieldLimits.isContentHash(hash), let file = try? store.openForReading(hash) else {
            throw .blobNotFound(hash)
        }
        let size: Int
        do throws(StorageError) {
            size = try file.size()
        } catch {
            file.close()
            throw error
        }
        guard request.offset <= UInt64(size) else {
            file.close()
            throw .rangeOutOfBounds(hash: hash, offset: Int(clamping: request.offset), length: Int(clamping: request.length), size: size)
        }
        let offset = Int(request.offset)
        let wanted = request.length == 0 ? size - offset : Int(min(UInt64(size - offset), request.length))
        self.request = request.id
        self.total = size
        self.file = file
        self.position = Mutex((offset, false))
        self.end = offset + wanted
        self.chunkLength = chunkLength
    }

    deinit {
        file.close()
    }

    /// Whether the last chunk was produced (the next `nextFrame()` returns nil).
    var isFinished: Bool {
        position.withLock { $0.produced && $0.offset >= end }
    }

    /// The next `chunk` frame, or nil once the range is sent. A blob of 0 bytes (or an empty range)
    /// is answered with one empty chunk, so that the requester learns the total.
    func nextFrame() throws(StorageError) -> Frame? {
        try position.withLock { position throws(StorageError) -> Frame? in
            if position.offset >= end && position.produced { return nil }
            let count = min(chunkLength, end - position.offset)
            let data = try file.read(count: count, at: position.offset)
            guard data.count == count else { throw .io(operation: "read", path: file.path, errno: EIO) }
            let chunk = Chunk(id: request, offset: UInt64(position.offset), total: UInt64(total), data: data)
            position.offset += count
            position.produced = true
            return Message.chunk(chunk).frame
        }
    }
}
