import GalleryModel

/// The size of a replica's op log in the binary encoding, for the `bytes` field of the results.
enum EncodedLog {
    /// The bytes the replica's op log takes, encoded as `OpCodec` encodes ops (the replica keeps its
    /// log in that form, so this is what it holds in memory for the log).
    static func byteCount(of replica: Replica) -> Int {
        replica.encodedLogSize
    }
}
