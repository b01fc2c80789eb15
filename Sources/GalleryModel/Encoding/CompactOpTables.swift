/// The replica and gallery tables of one direction of a connection, for `ops_compact` frames
/// (protocol.md, section 7, "Compact ops").
///
/// A replica ID is written `rep:varint`: 0, then the ID as `u64`, for one the table lacks (it is
/// appended, while the table holds fewer than `replicaCapacity`); k >= 1 for entry k - 1. A gallery
/// name is written `gal:varint` the same way, 0 then a `string`, appended while the table holds
/// fewer than `galleryCapacity`. The sender and the receiver of a direction each keep one and
/// make the same appends in the same order (the order of the bytes), so they always agree; both
/// start empty.
///
/// The sender looks values up (`replicaIndex`, `galleryIndex`); the receiver reads entries by
/// position and refuses an index past its table (`DecodingError.invalidValue`).
package struct CompactOpTables: Sendable {
    /// The most replica IDs a table holds; a new one is written in full (after a 0) once full.
    package static let replicaCapacity = 4_096
    /// The most gallery names a table holds.
    package static let galleryCapacity = 1_024

    /// Replica IDs in the order appended.
    package private(set) var replicas: [ReplicaID] = []
    /// Gallery names in the order appended.
    package private(set) var galleries: [String] = []
    /// The position of each replica ID in `replicas` (the first, should one be there twice).
    private var replicaIndex: [ReplicaID: Int] = [:]
    /// The position of each gallery name in `galleries`.
    private var galleryIndex: [String: Int] = [:]
    /// See `OpNameCoding.takeCanonicalSurplus`.
    private var surplus = 0

    /// Empty tables: those of a direction after the handshake.
    package init() {}

    /// The tables' sizes at some moment, to go back to (`rollBack(to:)`).
    package struct Mark: Sendable {
        var replicas: Int
        var galleries: Int
    }

    /// The tables' sizes now.
    package var mark: Mark { Mark(replicas: replicas.count, galleries: galleries.count) }

    /// Forgets the entries appended since `mark`: what an encoder does when it drops what it
    /// wrote since (those bytes never reach the receiver, so neither may their appends).
    ///
    /// - Complexity: O(k) for k entries dropped.
    package mutating func rollBack(to mark: Mark) {
        while replicas.count > mark.replicas {
            let replica = replicas.removeLast()
            if replicaIndex[replica] == replicas.count { replicaIndex[replica] = nil }
        }
        while galleries.count > mark.galleries {
            let gallery = galleries.removeLast()
            if galleryIndex[gallery] == galleries.count { galleryIndex[gallery] = nil }
        }
    }

    /// The size of `value` as a varint.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }
}

extension CompactOpTables: OpNameCoding {
    package mutating func writeReplica(_ replica: ReplicaID, into writer: inout some ByteSink) {
        if let index = replicaIndex[replica] {
            writer.varint(UInt64(index + 1))
            return
        }
        writer.varint(0)
        writer.fixed64(replica.rawValue)
        if replicas.count < Self.replicaCapacity {
            replicaIndex[replica] = replicas.count
            replicas.append(replica)
        }
    }

    package mutating func writeGallery(_ gallery: String, into writer: inout some ByteSink) {
        if let index = galleryIndex[gallery] {
            writer.varint(UInt64(index + 1))
            return
        }
        writer.varint(0)
        writer.string(gallery)
        if galleries.count < Self.galleryCapacity {
            galleryIndex[gallery] = galleries.count
            galleries.append(gallery)
        }
    }

    package mutating func readReplica(from reader: inout ByteReader) throws(DecodingError) -> ReplicaID {
        let index = try reader.varint()
        guard index == 0 else {
            guard index <= UInt64(replicas.count) else {
                throw .invalidValue("replica index \(index) past a table of \(replicas.count)")
            }
            surplus += 8 - Self.varintSize(index)
            return replicas[Int(index - 1)]
        }
        let replica = ReplicaID(try reader.fixed64())
        surplus -= 1
        if replicas.count < Self.replicaCapacity {
            if replicaIndex[replica] == nil { replicaIndex[replica] = replicas.count }
            replicas.append(replica)
        }
        return replica
    }

    package mutating func readGallery(from reader: inout ByteReader) throws(DecodingError) -> String {
        let index = try reader.varint()
        guard index == 0 else {
            guard index <= UInt64(galleries.count) else {
                throw .invalidValue("gallery index \(index) past a table of \(galleries.count)")
            }
            let gallery = galleries[Int(index - 1)]
            let length = gallery.utf8.count
            surplus += Self.varintSize(UInt64(length)) + length - Self.varintSize(index)
            return gallery
        }
        let gallery = try reader.string(limit: OpCodec.maxStringBytes)
        surplus -= 1
        if galleries.count < Self.galleryCapacity {
            if galleryIndex[gallery] == nil { galleryIndex[gallery] = galleries.count }
            galleries.append(gallery)
        }
        return gallery
    }

    package mutating func takeCanonicalSurplus() -> Int {
        defer { surplus = 0 }
        return surplus
    }
}
