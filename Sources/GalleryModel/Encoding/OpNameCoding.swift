/// How `OpCodec` writes and reads the two values that repeat from op to op: replica IDs (in the op
/// header and in `0x02` references) and gallery names (of inserts and moves).
///
/// The canonical encoding (protocol.md, section 7) writes them in full (`CanonicalOpNames`);
/// an `ops_compact` frame names them by index into the tables of its connection's direction
/// (`CompactOpTables`). Either way the rest of the op is the same bytes, written by the same code.
package protocol OpNameCoding {
    /// Writes the replica ID of an op header or of a `0x02` reference.
    mutating func writeReplica(_ replica: ReplicaID, into writer: inout some ByteSink)
    /// Writes the gallery name of an insert or a move.
    mutating func writeGallery(_ gallery: String, into writer: inout some ByteSink)
    /// Reads what `writeReplica` wrote.
    mutating func readReplica(from reader: inout ByteReader) throws(DecodingError) -> ReplicaID
    /// Reads what `writeGallery` wrote.
    mutating func readGallery(from reader: inout ByteReader) throws(DecodingError) -> String
    /// How many bytes more the values read since the last call take in the canonical encoding
    /// than they took here (negative when fewer), and starts counting again: what the bound on
    /// an op's encoded size (`FieldLimits.maxEncodedOpSize`) adds to the bytes read.
    mutating func takeCanonicalSurplus() -> Int
}

/// The canonical encoding's names: a replica ID as `u64`, a gallery as a `string`.
package struct CanonicalOpNames: OpNameCoding {
    package init() {}

    @inline(__always)
    package mutating func writeReplica(_ replica: ReplicaID, into writer: inout some ByteSink) {
        writer.fixed64(replica.rawValue)
    }

    @inline(__always)
    package mutating func writeGallery(_ gallery: String, into writer: inout some ByteSink) {
        writer.string(gallery)
    }

    @inline(__always)
    package mutating func readReplica(from reader: inout ByteReader) throws(DecodingError) -> ReplicaID {
        ReplicaID(try reader.fixed64())
    }

    @inline(__always)
    package mutating func readGallery(from reader: inout ByteReader) throws(DecodingError) -> String {
        try reader.string(limit: OpCodec.maxStringBytes)
    }

    @inline(__always)
    package mutating func takeCanonicalSurplus() -> Int { 0 }
}
