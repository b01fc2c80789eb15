/// A request for a blob's bytes, by SHA-256 and offset (reserved for content transfers).
package struct FetchRequest: Hashable, Sendable {
    /// Chosen by the requester, unique among its open fetches on the connection.
    package var id: UInt64
    /// SHA-256 of the blob (32 bytes).
    package var hash: [UInt8]
    /// The first byte wanted.
    package var offset: UInt64
    /// The most bytes wanted; 0 for "to the end".
    package var length: UInt64

    package init(id: UInt64, hash: [UInt8], offset: UInt64, length: UInt64) {
        self.id = id
        self.hash = hash
        self.offset = offset
        self.length = length
    }
}

/// A piece of a blob sent in answer to a `FetchRequest`.
package struct Chunk: Hashable, Sendable {
    /// The fetch it answers.
    package var id: UInt64
    /// Where the piece starts in the blob.
    package var offset: UInt64
    /// The blob's whole size.
    package var total: UInt64
    /// The bytes.
    package var data: [UInt8]

    package init(id: UInt64, offset: UInt64, total: UInt64, data: [UInt8]) {
        self.id = id
        self.offset = offset
        self.total = total
        self.data = data
    }
}
